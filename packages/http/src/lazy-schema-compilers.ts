// Fastify compiles every route's JSON Schema validators with Ajv when the server starts: about a
// second of CPU for the agent server's routes, paid by every process start (and by every test that
// starts one) though most routes are never called in a process's life. This compiles each one on its
// route's first request instead, with Fastify's own compiler and options, so validation answers
// exactly as before. A schema that does not compile fails that route's first request (500) rather than
// the start; every route's schema is exercised by the services' tests.
import { AjvCompiler } from "@fastify/ajv-compiler";
import type { FastifyServerOptions } from "fastify";

type ValidatorFactory = ReturnType<typeof AjvCompiler>;
type Compile = ReturnType<ValidatorFactory>;
type Validate = ReturnType<Compile>;

/** Fastify's `schemaController` option that defers each validator's compilation to its first use. */
export function lazyValidators(): NonNullable<FastifyServerOptions["schemaController"]> {
  const factory = AjvCompiler();
  return {
    compilersFactory: {
      buildValidator(externalSchemas: unknown, ajvOptions: unknown) {
        const compile = (factory as (externals: unknown, options: unknown) => Compile)(externalSchemas, ajvOptions);
        return (route: Parameters<Compile>[0]) => {
          let validate: Validate | undefined;
          const lazy = ((data: unknown) => {
            validate ??= compile(route);
            const result = (validate as (value: unknown) => unknown)(data);
            lazy.errors = (validate as { errors?: unknown }).errors;
            return result;
          }) as ((data: unknown) => unknown) & { errors?: unknown };
          return lazy as unknown as Validate;
        };
      },
    },
  } as NonNullable<FastifyServerOptions["schemaController"]>;
}

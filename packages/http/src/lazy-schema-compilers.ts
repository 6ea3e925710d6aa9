// Fastify compiles every route's JSON Schema validators (Ajv) and response serializers
// (fast-json-stringify) when the server starts: about a second of CPU for the agent server's
// validators and more for the gateway's serializers, paid by every process start (and by every test
// that starts one) though most routes are never called in a process's life. This compiles each one
// on its route's first use instead, with Fastify's own compilers and options, so requests are
// validated and answers written exactly as before. A schema that does not compile fails that
// route's first use (500) rather than the start; every route's schema is exercised by the services' tests.
import { createRequire } from "node:module";
import { AjvCompiler } from "@fastify/ajv-compiler";
import type { FastifyServerOptions } from "fastify";

type ValidatorFactory = ReturnType<typeof AjvCompiler>;
type Compile = ReturnType<ValidatorFactory>;
type Validate = ReturnType<Compile>;
type Serialize = (data: unknown) => string;
type CompileSerializer = (route: { schema: unknown; method?: string; url?: string; httpStatus?: string; contentType?: string }) => Serialize;
type SerializerFactory = (externalSchemas: unknown, serializerOptions: unknown) => CompileSerializer;

/** Fastify's own default serializer compiler, from where Fastify finds it (it is Fastify's dependency, not ours). */
function fastifySerializers(): SerializerFactory {
  const fastify = createRequire(import.meta.url).resolve("fastify");
  const { SerializerSelector } = createRequire(fastify)("@fastify/fast-json-stringify-compiler") as { SerializerSelector: () => SerializerFactory };
  return SerializerSelector();
}

/** Fastify's `schemaController` option that defers each validator's and serializer's compilation to its first use. */
export function lazySchemaCompilers(): NonNullable<FastifyServerOptions["schemaController"]> {
  const validators = AjvCompiler();
  const serializers = fastifySerializers();
  return {
    compilersFactory: {
      buildValidator(externalSchemas: unknown, ajvOptions: unknown) {
        const compile = (validators as (externals: unknown, options: unknown) => Compile)(externalSchemas, ajvOptions);
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
      buildSerializer(externalSchemas: unknown, serializerOptions: unknown) {
        const compile = serializers(externalSchemas, serializerOptions);
        return (route: Parameters<CompileSerializer>[0]) => {
          let serialize: Serialize | undefined;
          return (data: unknown) => (serialize ??= compile(route))(data);
        };
      },
    },
  } as NonNullable<FastifyServerOptions["schemaController"]>;
}

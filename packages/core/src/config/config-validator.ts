// The config schema's validator. Compiling it with Ajv costs a few hundred milliseconds of CPU,
// which every process that loads the config (both services, each CLI command) would pay at start.
// The build writes it once as standalone code next to this module (scripts/build-config-validator.mjs
// writes dist/src/config/config-validator.cjs); a process loads that when its key matches this
// schema and these options, and otherwise (the sources under tsx, a build older than the schema)
// compiles it here, on first use, so importing core costs nothing either way.
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { Ajv, type Options, type ValidateFunction } from "ajv";
import { configSchema } from "./config-schema.js";

/** The options both the build and a process compile with. */
export const configAjvOptions: Options = { useDefaults: true, allErrors: true, strict: true };

/** Names the schema and options a prebuilt validator was made from. */
export function configValidatorKey(): string {
  return createHash("sha256").update(JSON.stringify({ schema: configSchema, options: configAjvOptions })).digest("hex");
}

let validator: ValidateFunction | undefined;

/** The validator: the build's when it was made from this schema, else compiled now (once per process). */
export function configValidator(): ValidateFunction {
  return (validator ??= prebuilt() ?? new Ajv(configAjvOptions).compile(configSchema));
}

function prebuilt(): ValidateFunction | undefined {
  try {
    const loaded = createRequire(import.meta.url)("./config-validator.cjs") as { key?: string; validate?: ValidateFunction };
    return loaded.key === configValidatorKey() ? loaded.validate : undefined;
  } catch {
    return undefined; // no build of it (the sources), or an unreadable one: compile instead
  }
}

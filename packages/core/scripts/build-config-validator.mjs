// After `tsc -b`: writes the config schema's validator as standalone code into core's build
// (dist/src/config/config-validator.cjs), so processes load it instead of compiling the schema
// (src/config/config-validator.ts says when they do which).
import fs from "node:fs";
import { Ajv } from "ajv";
import standalone from "ajv/dist/standalone/index.js";

const dist = new URL("../dist/src/config/", import.meta.url);
const { configSchema } = await import(new URL("config-schema.js", dist).href);
const { configAjvOptions, configValidatorKey } = await import(new URL("config-validator.js", dist).href);

const ajv = new Ajv({ ...configAjvOptions, code: { source: true } });
const code = standalone.default(ajv, ajv.compile(configSchema));
const key = configValidatorKey();
fs.writeFileSync(new URL("config-validator.cjs", dist), `${code}\nmodule.exports.key = ${JSON.stringify(key)};\nmodule.exports.validate = module.exports.default;\n`);

import { networkPattern } from "@thinktank/core";
import { toolNamePattern } from "./tool-names.js";
import { toolRuntimes } from "./tool-definition.js";

/** A script's file name under the tools folder: no folders, not `.` or `..`. */
export const scriptFileNamePattern = "^(?!\\.\\.?$)[^/\\\\\\u0000]{1,255}$";

/** Longest timeout a tool may ask for, in seconds (one hour). */
export const maxToolTimeoutSeconds = 3600;

const definitionProperties = {
  description: { type: "string", minLength: 1, maxLength: 8192, description: "What the tool does and when to prefer another tool: the model chooses by it." },
  input_schema: {
    type: "object",
    required: ["type"],
    properties: { type: { const: "object" } },
    description: "JSON Schema of the arguments; its top level is `type: object`.",
  },
  output_schema: { type: "object", description: "JSON Schema of what the script prints; absent means any JSON value." },
  runtime: { enum: [...toolRuntimes], description: "python (python3), node, or shell (bash)." },
  timeout: { type: "number", exclusiveMinimum: 0, maximum: maxToolTimeoutSeconds, description: "Seconds; config.tools.default_timeout_seconds when absent." },
  parallel_capable: { type: "boolean", description: "May run at the same time as the turn's other tool calls. Default false." },
  enabled: { type: "boolean", description: "Offered to the model. Default true." },
  env: {
    type: "object",
    propertyNames: { pattern: "^[A-Za-z_][A-Za-z0-9_]*$" },
    additionalProperties: { type: "string" },
    description: "Extra environment variables for the script; `${VAR}` placeholders resolve from the server's environment at call time (scripts get no other host variables).",
  },
  network: {
    type: "array",
    items: networkPattern,
    uniqueItems: true,
    maxItems: 64,
    description: "Hosts the script may reach from the sandbox through the egress proxy: host, host:port or *.domain[:port] (no port: 80 and 443). Registered tools run on the host, trusted; this is what they declare.",
  },
} as const;

/** Keys starting with `x-` are kept as they are (room for annotations); any other unknown key is a typo. */
const extensionKeys = { "^x-": true } as const;

/**
 * The `tools` entry of extensions_config.json as the registry accepts it: stricter than the
 * store's default (unknown keys are refused so a typo such as `paralel_capable` cannot pass
 * silently). The gateway gives it to the store as the `tools` section schema.
 */
export const registryToolEntrySchema = {
  type: "object",
  required: ["description", "input_schema", "runtime", "script"],
  additionalProperties: false,
  patternProperties: extensionKeys,
  properties: {
    name: { type: "string", pattern: toolNamePattern },
    ...definitionProperties,
    script: { type: "string", pattern: scriptFileNamePattern, description: "File name of the script under config.tools.scripts_dir." },
    created_at: { type: "string" },
    updated_at: { type: "string" },
  },
} as const;

/** POST /api/tools as JSON: the definition with the script's source text inline. */
export const createToolBodySchema = {
  type: "object",
  required: ["name", "description", "input_schema", "runtime", "script"],
  additionalProperties: false,
  patternProperties: extensionKeys,
  properties: {
    name: { type: "string", description: `The tool's name (${toolNamePattern}); not a built-in name.` },
    ...definitionProperties,
    script: { type: "string", minLength: 1, description: "The script's source text." },
  },
} as const;

/** The multipart field `definition` of POST /api/tools: the definition without the script (it comes in the field `file`). */
export const createToolDefinitionFieldSchema = {
  type: "object",
  required: ["name", "description", "input_schema", "runtime"],
  additionalProperties: false,
  patternProperties: extensionKeys,
  properties: { name: createToolBodySchema.properties.name, ...definitionProperties },
} as const;

/** PUT /api/tools/:name: any of the fields; the ones left out keep their values (and the script stays when `script` is absent). */
export const updateToolBodySchema = {
  type: "object",
  additionalProperties: false,
  patternProperties: extensionKeys,
  properties: { name: { type: "string", description: "Must be the name in the path when given (tools are not renamed)." }, ...definitionProperties, script: createToolBodySchema.properties.script },
} as const;

/** The multipart field `definition` of PUT /api/tools/:name. */
export const updateToolDefinitionFieldSchema = {
  type: "object",
  additionalProperties: false,
  patternProperties: extensionKeys,
  properties: { name: updateToolBodySchema.properties.name, ...definitionProperties },
} as const;

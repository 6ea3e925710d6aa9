/**
 * JSON Schemas of the entries in each section of extensions_config.json. The store validates
 * every entry a write adds or changes against them, and the gateway uses them for its request
 * bodies (and so its OpenAPI document). Extra fields are allowed everywhere and kept.
 * A library that owns a section can pass a stricter schema through the store's `schemas` option.
 */

import { networkPattern } from "../config/config-schema.js";

/** Every spelling of a transport `type` the MCP library understands. */
export const remoteServerTypes = ["sse", "SSE", "http", "HTTP", "streamable-http", "streamableHttp", "streamable_http"] as const;
export const stdioServerTypes = ["stdio", "STDIO"] as const;

const stringMap = { type: "object", additionalProperties: { type: "string" } } as const;

/**
 * A remote server's `oauth` block. Interactive sign-in (`authorization_code`, the default) may
 * name a pre-registered client; machine-to-machine (`client_credentials`) needs `client_id` and
 * `client_secret` (write `${VAR}`: the value is a secret). `clientId` / `callbackPort` are Claude
 * Code's spellings in plugins' .mcp.json. Extra keys are kept.
 */
export const mcpOAuthSchema = {
  type: "object",
  properties: {
    grant: { enum: ["authorization_code", "client_credentials"] },
    client_id: { type: "string", minLength: 1 },
    clientId: { type: "string", minLength: 1 },
    client_secret: { type: "string", minLength: 1 },
    scopes: { anyOf: [{ type: "string" }, { type: "array", items: { type: "string", minLength: 1 } }] },
    token_url: { type: "string", pattern: "^(https?://|\\$)" },
    callback_port: { type: "integer", minimum: 1, maximum: 65535 },
    callbackPort: { type: "integer", minimum: 1, maximum: 65535 },
  },
  if: { required: ["grant"], properties: { grant: { const: "client_credentials" } } },
  then: { required: ["client_id", "client_secret"] },
} as const;

/**
 * An `mcpServers` entry: stdio (`command`, no `type` or `type: "stdio"`) or remote
 * (`type: "sse" | "http"`, `url`). A lone `url` without `type` means streamable HTTP. A stdio entry
 * with `sandbox: true` runs in the sandbox, reaching only the hosts its `network` lists.
 */
export const mcpServerEntrySchema = {
  type: "object",
  properties: {
    type: { enum: [...stdioServerTypes, ...remoteServerTypes] },
    command: { type: "string", minLength: 1 },
    args: { type: "array", items: { type: "string" } },
    env: stringMap,
    cwd: { type: "string", minLength: 1 },
    url: { type: "string", minLength: 1, pattern: "^(https?://|\\$)" },
    headers: stringMap,
    oauth: mcpOAuthSchema,
    description: { type: "string" },
    enabled: { type: "boolean" },
    sandbox: { type: "boolean", description: "A stdio server: run it in the sandbox (bubblewrap), never on the host" },
    network: { type: "array", items: networkPattern, uniqueItems: true, description: "A sandboxed stdio server: the hosts it may reach through the egress proxy (host, host:port, *.domain[:port])" },
  },
  if: { required: ["type"], properties: { type: { enum: remoteServerTypes } } },
  then: { required: ["url"] },
  else: {
    if: { required: ["type"] },
    then: { required: ["command"] },
    else: { anyOf: [{ required: ["command"] }, { required: ["url"] }] },
  },
} as const;

/** A `skills`, `plugins` or `agents` entry. */
export const enabledEntrySchema = {
  type: "object",
  required: ["enabled"],
  properties: { enabled: { type: "boolean" } },
} as const;

/** A `tools` entry (the tools library may tighten it). `script` is a file name under the tools folder. */
export const toolEntrySchema = {
  type: "object",
  required: ["description", "input_schema", "runtime", "script"],
  properties: {
    name: { type: "string", minLength: 1 },
    description: { type: "string", minLength: 1 },
    input_schema: { type: "object" },
    output_schema: { type: "object" },
    runtime: { enum: ["python", "node", "shell"] },
    script: { type: "string", minLength: 1, pattern: "^(?!\\.\\.?$)[^/\\\\\\u0000]+$" },
    timeout: { type: "number", exclusiveMinimum: 0 },
    parallel_capable: { type: "boolean" },
    enabled: { type: "boolean" },
  },
} as const;

/** A `marketplaces` entry: its source (by type) and what was last fetched. */
export const marketplaceRecordSchema = {
  type: "object",
  required: ["source"],
  properties: {
    source: {
      type: "object",
      required: ["source"],
      properties: {
        source: { enum: ["github", "git", "npm", "directory", "url"] },
        repo: { type: "string", pattern: "^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$" },
        url: { type: "string", minLength: 1 },
        package: { type: "string", minLength: 1 },
        version: { type: "string", minLength: 1 },
        ref: { type: "string", minLength: 1 },
        path: { type: "string", minLength: 1 },
      },
    },
    pinned: {
      type: "object",
      properties: { commit: { type: "string", pattern: "^[0-9a-f]{40,64}$" }, integrity: { type: "string" }, version: { type: "string" }, sha256: { type: "string" } },
    },
    updated_at: { type: "string" },
  },
} as const;

/**
 * A `users` entry (one user's own state, keyed by their id): `skills` and `agents` are their
 * enablement overlays, keyed by skill and agent identity; `mcpServers` their own remote servers
 * (named like configured ones; the agent offers them to that user only, as `~<name>`; a stdio
 * entry is never started for a user); `memory` their memory switches (`enabled`, `auto`: PUT
 * /api/memory/settings). Other keys are kept.
 */
export const userRecordEntrySchema = {
  type: "object",
  properties: {
    skills: { type: "object", propertyNames: { minLength: 1, maxLength: 300 }, additionalProperties: enabledEntrySchema },
    agents: { type: "object", propertyNames: { minLength: 1, maxLength: 300 }, additionalProperties: enabledEntrySchema },
    mcpServers: { type: "object", propertyNames: { pattern: "^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$" }, additionalProperties: mcpServerEntrySchema },
    memory: { type: "object", properties: { enabled: { type: "boolean" }, auto: { type: "boolean" } } },
  },
} as const;

/** The entry schema of each section, by section name. */
export const extensionsEntrySchemas = {
  mcpServers: mcpServerEntrySchema,
  skills: enabledEntrySchema,
  plugins: enabledEntrySchema,
  tools: toolEntrySchema,
  marketplaces: marketplaceRecordSchema,
  users: userRecordEntrySchema,
  agents: enabledEntrySchema,
} as const;

export type ExtensionsEntrySchemas = { readonly [Section in keyof typeof extensionsEntrySchemas]: object };

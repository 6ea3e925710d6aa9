import { pluginNamePattern } from "./plugin-name.js";

const paths = {
  anyOf: [
    { type: "string", minLength: 1 },
    { type: "array", items: { type: "string", minLength: 1 } },
  ],
} as const;

const pathsOrInline = { anyOf: [...paths.anyOf, { type: "object" }] } as const;

/**
 * JSON Schema of `.claude-plugin/plugin.json`: every field Claude Code defines. Only `name` is
 * required. Unknown fields are allowed and kept (Claude Code adds fields over time).
 */
export const pluginManifestSchema = {
  type: "object",
  required: ["name"],
  additionalProperties: true,
  properties: {
    $schema: { type: "string" },
    name: { type: "string", pattern: pluginNamePattern },
    version: { type: "string" },
    description: { type: "string" },
    author: {
      anyOf: [
        { type: "string" },
        {
          type: "object",
          additionalProperties: true,
          properties: { name: { type: "string" }, email: { type: "string" }, url: { type: "string" } },
        },
      ],
    },
    homepage: { type: "string" },
    repository: { anyOf: [{ type: "string" }, { type: "object" }] },
    license: { type: "string" },
    keywords: { type: "array", items: { type: "string" } },
    commands: paths,
    agents: paths,
    skills: paths,
    outputStyles: paths,
    hooks: pathsOrInline,
    mcpServers: pathsOrInline,
    lspServers: pathsOrInline,
  },
} as const;

/** What each field must be, for error messages that say it plainly instead of ajv's anyOf noise. */
export const manifestFieldExpectations: Readonly<Record<string, string>> = {
  name: "a string of 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit",
  author: "a string or an object { name, email, url }",
  repository: "a string or an object",
  keywords: "a list of strings",
  commands: "a path or a list of paths",
  agents: "a path or a list of paths",
  skills: "a path or a list of paths",
  outputStyles: "a path or a list of paths",
  hooks: "a path, a list of paths, or an inline hooks object",
  mcpServers: "a path, a list of paths, or an inline object of servers",
  lspServers: "a path, a list of paths, or an inline object of servers",
};

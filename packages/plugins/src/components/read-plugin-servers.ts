import { transportKindOf, type McpServerEntry } from "@thinktank/mcp";
import type { PluginManifest, PluginProblem, PluginServerDefinition, PluginServerTransport } from "../plugin-types.js";
import { manifestFile, typeName } from "../manifest/read-plugin-manifest.js";
import { jsonComponentFiles } from "./component-paths.js";
import { readJsonFile } from "./read-json-file.js";

/**
 * The MCP servers a plugin declares: `.mcp.json` when it exists, plus the manifest's `mcpServers`
 * (paths to such files, or an inline object). Files may be `{ "mcpServers": { ... } }` or the bare
 * map `{ "<name>": { ... } }`. A server name seen twice keeps its first definition (a warning).
 * Entries are kept as written (placeholders and unknown keys included); whether a server can be
 * used is decided later, at merge time.
 */
export function readPluginServers(root: string, manifest: PluginManifest, problems: PluginProblem[]): PluginServerDefinition[] {
  const field = manifest.mcpServers;
  const files = jsonComponentFiles(root, "mcpServers", field, ".mcp.json", problems);
  const servers: PluginServerDefinition[] = [];
  const add = (value: unknown, file: string): void => {
    for (const server of parseServerMap(value, file, problems)) {
      if (servers.some((s) => s.name === server.name)) {
        problems.push({ severity: "warning", file, message: `server '${server.name}' is already defined in ${servers.find((s) => s.name === server.name)?.file}; this definition is ignored` });
        continue;
      }
      servers.push(server);
    }
  };
  for (const file of files) {
    const read = readJsonFile(file.absolute, file.relative);
    if (read.ok) add(read.value, file.relative);
    else problems.push(read.problem);
  }
  if (field !== undefined && typeof field === "object" && !Array.isArray(field)) add(field, manifestFile);
  return servers;
}

function parseServerMap(value: unknown, file: string, problems: PluginProblem[]): PluginServerDefinition[] {
  if (!isObject(value)) {
    problems.push({ severity: "error", file, message: `must be a JSON object of MCP servers (got ${typeName(value)})` });
    return [];
  }
  const map = isObject(value.mcpServers) ? value.mcpServers : value;
  const servers: PluginServerDefinition[] = [];
  for (const [name, entry] of Object.entries(map)) {
    if (name.trim() === "") {
      problems.push({ severity: "error", file, message: "a server has an empty name" });
      continue;
    }
    if (!isObject(entry)) {
      problems.push({ severity: "error", file, message: `server '${name}' must be an object (got ${typeName(entry)})` });
      continue;
    }
    const { transport, typeFieldAbsent } = transportOf(entry);
    if (transport === undefined) {
      problems.push({ severity: "warning", file, message: `server '${name}' has the unknown type ${JSON.stringify(entry.type)} (expected stdio, sse or http); it will be listed as unavailable` });
    }
    servers.push({ name, file, entry, transport, typeFieldAbsent });
  }
  return servers;
}

/** The MCP library's reading of the transport; `typeFieldAbsent` when it had to infer it. */
export function transportOf(entry: Readonly<Record<string, unknown>>): { transport: PluginServerTransport | undefined; typeFieldAbsent: boolean } {
  return { transport: transportKindOf(entry as McpServerEntry), typeFieldAbsent: entry.type === undefined };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

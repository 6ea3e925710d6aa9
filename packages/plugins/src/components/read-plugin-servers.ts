import type { PluginManifest, PluginProblem, PluginServerDefinition, PluginServerTransport } from "../plugin-types.js";
import { manifestFile, typeName } from "../manifest/read-plugin-manifest.js";
import { componentLocations, type ComponentLocation } from "./component-paths.js";
import { readJsonFile } from "./read-json-file.js";

const transportAliases: Readonly<Record<string, PluginServerTransport>> = {
  stdio: "stdio",
  sse: "sse",
  http: "http",
  "streamable-http": "http",
  streamablehttp: "http",
  streamable_http: "http",
};

/**
 * The MCP servers a plugin declares: `.mcp.json` when it exists, plus the manifest's `mcpServers`
 * (paths to such files, or an inline object). Files may be `{ "mcpServers": { ... } }` or the bare
 * map `{ "<name>": { ... } }`. A server name seen twice keeps its first definition (a warning).
 * Entries are kept as written (placeholders and unknown keys included); whether a server can be
 * used is decided later, at merge time.
 */
export function readPluginServers(root: string, manifest: PluginManifest, problems: PluginProblem[]): PluginServerDefinition[] {
  const files: ComponentLocation[] = componentLocations(root, "mcpServers", undefined, ".mcp.json", problems).filter((l) => l.kind === "file");
  const field = manifest.mcpServers;
  if (field !== undefined && (typeof field === "string" || Array.isArray(field))) {
    for (const location of componentLocations(root, "mcpServers", field as string | string[], "", problems)) {
      if (location.kind !== "file") {
        problems.push({ severity: "error", file: manifestFile, message: `'mcpServers' path ./${location.relative} is a folder; it must name a JSON file` });
        continue;
      }
      if (!files.some((f) => f.relative === location.relative)) files.push(location);
    }
  }
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

/** `type` when present (common spellings of streamable HTTP included); else stdio with a command, http with a url. */
export function transportOf(entry: Readonly<Record<string, unknown>>): { transport: PluginServerTransport | undefined; typeFieldAbsent: boolean } {
  if (typeof entry.type === "string" && entry.type.trim() !== "") {
    return { transport: transportAliases[entry.type.trim().toLowerCase()], typeFieldAbsent: false };
  }
  if (entry.type !== undefined) return { transport: undefined, typeFieldAbsent: false };
  if (entry.url !== undefined && entry.command === undefined) return { transport: "http", typeFieldAbsent: true };
  return { transport: "stdio", typeFieldAbsent: true };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

import fs from "node:fs";
import path from "node:path";
import { networkPattern, ThinktankError } from "@thinktank/core";
import type { ScopedScriptTool } from "./script-tool-runner.js";

/** A tools.json entry that brings one tool of an MCP server into the skill's context. */
export interface McpToolReference {
  readonly kind: "mcp";
  /** The server as the agent knows it: a configured name or `<plugin>:<server>`. */
  readonly server: string;
  /** The tool's MCP name. */
  readonly tool: string;
  /** The name the model sees. @default the tool's name, with characters outside [A-Za-z0-9_-] replaced by '_' */
  readonly name: string;
  /** Replaces the server's description of the tool. */
  readonly description?: string;
}

/** A tools.json entry that is a script tool, its script in the skill's scripts/ folder. */
export interface ScriptToolReference extends ScopedScriptTool {
  readonly kind: "script";
}

export type ScopedToolReference = McpToolReference | ScriptToolReference;

/** A resources.json entry: a file of the skill, or a resource of an MCP server. */
export interface SkillResource {
  readonly uri: string;
  readonly description: string;
  readonly name?: string;
  readonly mimeType?: string;
  readonly source: { readonly kind: "file"; readonly file: string; readonly relative: string } | { readonly kind: "mcp"; readonly server: string; readonly uri: string };
}

export interface SkillContextSpec {
  readonly tools: readonly ScopedToolReference[];
  readonly resources: readonly SkillResource[];
  /** What was read but ignored (a `trusted` a tools.json entry claims for itself); absent when nothing was. */
  readonly warnings?: readonly string[];
}

/**
 * Where the skill's code comes from: its trust (`Skill.trusted`, which tools.json cannot declare: a
 * `trusted` key there is ignored) and its folder in the sandbox (`Skill.containerDir`), which script
 * tools carry so an untrusted one runs in the sandbox with the folder mounted read-only.
 */
export interface SkillCodeOrigin {
  readonly trusted: boolean;
  readonly containerDir: string;
}

const toolNamePattern = /^[A-Za-z0-9_-]{1,64}$/;
const hostPattern = new RegExp(networkPattern.pattern);
const runtimes = ["python", "node", "shell"] as const;
const defaultScriptTimeoutSeconds = 30;

/**
 * Reads a skill's tools.json and resources.json (both optional; docs/skill-contexts.md has the
 * format). Every problem is collected with its JSON path and reported at once as
 * SKILL_CONTEXT_INVALID; nothing of a malformed file is used. Script tools get `origin`'s trust and
 * the skill's folder; without an origin they are untrusted, with no sandbox folder (so they cannot run).
 */
export function readSkillContextSpec(skillDir: string, origin?: SkillCodeOrigin): SkillContextSpec {
  const problems: string[] = [];
  const warnings: string[] = [];
  const tools = readList(skillDir, "tools.json", "tools", problems).flatMap(({ value, at }) => {
    // Trust is an administrator's decision (PUT /api/skills/:name), never the package's own claim.
    if (isRecord(value) && value.trusted !== undefined) warnings.push(`${at}.trusted is ignored: a skill's tools cannot declare themselves trusted; an administrator marks the skill trusted`);
    const tool = checkTool(value, at, skillDir, origin, problems);
    return tool ? [tool] : [];
  });
  const names = new Set<string>();
  for (const tool of tools) {
    if (names.has(tool.name)) problems.push(`tools.json: two tools are named '${tool.name}'; give one a "name"`);
    names.add(tool.name);
  }
  const resources = readList(skillDir, "resources.json", "resources", problems).flatMap(({ value, at }) => {
    const resource = checkResource(value, at, skillDir, problems);
    return resource ? [resource] : [];
  });
  const uris = new Set<string>();
  for (const resource of resources) {
    if (uris.has(resource.uri)) problems.push(`resources.json: the uri '${resource.uri}' is listed twice`);
    uris.add(resource.uri);
  }
  if (problems.length > 0) {
    throw new ThinktankError("SKILL_CONTEXT_INVALID", `the skill at ${skillDir} has an invalid context: ${problems.join("; ")}`, { details: { problems } });
  }
  return { tools, resources, ...(warnings.length > 0 ? { warnings } : {}) };
}

/** `{ "<key>": [...] }` or a bare list; a missing file is an empty list. */
function readList(skillDir: string, fileName: string, key: string, problems: string[]): { value: unknown; at: string }[] {
  const file = path.join(skillDir, fileName);
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    problems.push(`${fileName}: cannot be read (${(error as Error).message})`);
    return [];
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    problems.push(`${fileName}: not valid JSON (${(error as Error).message})`);
    return [];
  }
  const list = Array.isArray(parsed) ? parsed : isRecord(parsed) ? parsed[key] : undefined;
  if (!Array.isArray(list)) {
    problems.push(`${fileName}: expected {"${key}": [...]} or a list`);
    return [];
  }
  return list.map((value, index) => ({ value, at: `${fileName}: ${Array.isArray(parsed) ? "" : key}[${index}]` }));
}

function checkTool(value: unknown, at: string, skillDir: string, origin: SkillCodeOrigin | undefined, problems: string[]): ScopedToolReference | undefined {
  if (!isRecord(value)) return void problems.push(`${at}: expected an object`);
  const before = problems.length;
  const text = (key: string, required: boolean): string | undefined => {
    const field = value[key];
    if (field === undefined && !required) return undefined;
    if (typeof field !== "string" || field.trim() === "") return void problems.push(`${at}.${key}: expected a non-empty string`);
    return field;
  };
  if (value.server !== undefined) {
    const server = text("server", true);
    const tool = text("tool", true);
    const description = text("description", false);
    const name = text("name", false) ?? tool?.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
    if (name !== undefined && !toolNamePattern.test(name)) problems.push(`${at}.name: '${name}' must be 1-64 characters of [A-Za-z0-9_-]`);
    if (problems.length > before || !server || !tool || !name) return undefined;
    return { kind: "mcp", server, tool, name, ...(description ? { description } : {}) };
  }
  const name = text("name", true);
  if (name !== undefined && !toolNamePattern.test(name)) problems.push(`${at}.name: '${name}' must be 1-64 characters of [A-Za-z0-9_-]`);
  const description = text("description", true);
  const script = text("script", true);
  const runtime = value.runtime;
  if (!runtimes.includes(runtime as (typeof runtimes)[number])) problems.push(`${at}.runtime: expected one of ${runtimes.join(", ")}`);
  const inputSchema = value.input_schema;
  if (!isRecord(inputSchema) || inputSchema.type !== "object") problems.push(`${at}.input_schema: expected a JSON Schema with "type": "object"`);
  const outputSchema = value.output_schema;
  if (outputSchema !== undefined && !isRecord(outputSchema)) problems.push(`${at}.output_schema: expected a JSON Schema object`);
  const timeout = value.timeout ?? defaultScriptTimeoutSeconds;
  if (typeof timeout !== "number" || !(timeout > 0)) problems.push(`${at}.timeout: expected a positive number of seconds`);
  if (value.parallel_capable !== undefined && typeof value.parallel_capable !== "boolean") problems.push(`${at}.parallel_capable: expected true or false`);
  const env = value.env;
  if (env !== undefined && (!isRecord(env) || Object.values(env).some((v) => typeof v !== "string"))) problems.push(`${at}.env: expected an object of strings`);
  const network = value.network;
  if (network !== undefined) {
    if (!Array.isArray(network)) problems.push(`${at}.network: expected a list of hosts such as ["api.github.com", "*.example.com:443"]`);
    else {
      network.forEach((host, index) => {
        if (typeof host !== "string" || host.length > networkPattern.maxLength || !hostPattern.test(host)) {
          problems.push(`${at}.network[${index}]: expected host, host:port or *.domain[:port], got ${JSON.stringify(host)}`);
        }
      });
      if (new Set(network).size !== network.length) problems.push(`${at}.network: lists a host twice`);
    }
  }
  const scriptPath = script === undefined ? undefined : scriptFile(skillDir, script, `${at}.script`, problems);
  if (problems.length > before || !name || !description || !script || !scriptPath) return undefined;
  return {
    kind: "script",
    name,
    description,
    input_schema: inputSchema as Record<string, unknown>,
    ...(outputSchema ? { output_schema: outputSchema as Record<string, unknown> } : {}),
    runtime: runtime as ScopedScriptTool["runtime"],
    script,
    timeout: timeout as number,
    parallel_capable: value.parallel_capable === true,
    enabled: true,
    ...(env ? { env: env as Record<string, string> } : {}),
    ...(network ? { network: network as string[] } : {}),
    scriptPath,
    trusted: origin?.trusted ?? false,
    ...(origin ? { folder: { hostDir: skillDir, sandboxDir: origin.containerDir } } : {}),
  };
}

function checkResource(value: unknown, at: string, skillDir: string, problems: string[]): SkillResource | undefined {
  if (!isRecord(value)) return void problems.push(`${at}: expected an object`);
  const before = problems.length;
  const string = (key: string): string | undefined => {
    const field = value[key];
    if (field === undefined) return undefined;
    if (typeof field !== "string" || field.trim() === "") return void problems.push(`${at}.${key}: expected a non-empty string`);
    return field;
  };
  const uri = string("uri");
  const description = string("description");
  if (uri === undefined) problems.push(`${at}.uri: required`);
  if (description === undefined) problems.push(`${at}.description: required`);
  const name = string("name");
  const mimeType = string("mime_type");
  const file = string("file");
  const server = string("server");
  const resource = string("resource");
  if ((file === undefined) === (server === undefined)) problems.push(`${at}: give either "file" (a file of the skill) or "server" (an MCP server)`);
  const hostFile = file === undefined ? undefined : skillFile(skillDir, file, `${at}.file`, problems);
  if (problems.length > before || !uri || !description) return undefined;
  const source: SkillResource["source"] = hostFile && file ? { kind: "file", file: hostFile, relative: file } : { kind: "mcp", server: server as string, uri: resource ?? uri };
  return { uri, description, ...(name ? { name } : {}), ...(mimeType ? { mimeType } : {}), source };
}

/** A script named relative to the skill's scripts/ folder (a leading "scripts/" is accepted). */
function scriptFile(skillDir: string, script: string, at: string, problems: string[]): string | undefined {
  const relative = script.replace(/^(\.\/)?scripts\//, "");
  return insideFile(path.join(skillDir, "scripts"), relative, at, problems);
}

function skillFile(skillDir: string, file: string, at: string, problems: string[]): string | undefined {
  return insideFile(skillDir, file.replace(/^\.\//, ""), at, problems);
}

/** The real path of `relative` inside `root`; a problem for absolute paths, '..', links out and missing files. */
function insideFile(root: string, relative: string, at: string, problems: string[]): string | undefined {
  if (path.isAbsolute(relative) || relative.split(/[\\/]/).includes("..")) return void problems.push(`${at}: '${relative}' must be a relative path inside the skill, without '..'`);
  let real: string;
  let realRoot: string;
  try {
    realRoot = fs.realpathSync(root);
    real = fs.realpathSync(path.join(root, relative));
  } catch {
    return void problems.push(`${at}: '${relative}' does not exist in ${root}`);
  }
  if (!real.startsWith(`${realRoot}${path.sep}`)) return void problems.push(`${at}: '${relative}' leads outside ${root}`);
  if (!fs.statSync(real).isFile()) return void problems.push(`${at}: '${relative}' is not a file`);
  return real;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

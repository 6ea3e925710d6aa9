import { expandDeep, networkPattern } from "@thinktank/core";
import type { McpServerEntry, McpTransportKind, ResolvedServerConfig, ServerResolution } from "./server-entry.js";
import { resolveOAuthSettings } from "./resolve-oauth-settings.js";
import type { StdioSandboxAvailability } from "./stdio-sandbox.js";
import { transportKindOf } from "./transport-kind.js";

export interface ResolveServerOptions {
  /** The variables `${VAR}` placeholders read, and where the child's PATH and HOME come from (an entry point passes config.env). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * Whether the caller runs stdio servers marked `sandbox: true` in the sandbox: `true` (or an
   * availability that is ok) when it does, an availability with the reason when it cannot on this
   * host (the deno backend). Otherwise such a server is unavailable with the reason: it never runs
   * on the host instead. @default false
   */
  readonly sandboxedStdio?: boolean | StdioSandboxAvailability;
}

/** Why a stdio server marked `sandbox: true` does not run where no stdio sandbox was given. */
export const sandboxedStdioUnsupported =
  "it is to run in the sandbox (sandbox: true, or plugins.host_programs: sandbox for a plugin's server), and this process was given no way to run stdio MCP servers in the sandbox; it never runs on the host instead";

const hostPattern = new RegExp(networkPattern.pattern);

/** Host variables every stdio child gets; everything else it sees comes from the entry's own `env`. */
const inheritedVariables = ["PATH", "HOME"] as const;

/**
 * Turns a configured entry into a transport config, resolving placeholders from `options.env`.
 * Call it when connecting, never earlier: the result may hold secrets and is kept in memory only.
 * Never throws: a server that cannot be used comes back `{ ok: false, reason }`.
 */
export function resolveServerConfig(entry: McpServerEntry, options: ResolveServerOptions): ServerResolution {
  const transport = transportKindOf(entry);
  const fail = (reason: string): ServerResolution => ({ ok: false, reason, transport });
  if (typeof entry.unavailable_reason === "string" && entry.unavailable_reason !== "") return fail(entry.unavailable_reason);
  if (transport === undefined) return fail(`unknown transport type '${String(entry.type)}' (expected stdio, sse or http)`);
  const shapeProblem = transport === "stdio" ? stdioShapeProblem(entry) : remoteShapeProblem(entry);
  if (shapeProblem) return fail(shapeProblem);
  if (transport === "stdio" && entry.sandbox === true) {
    const support = options.sandboxedStdio;
    if (support === undefined || support === false) return fail(sandboxedStdioUnsupported);
    if (support !== true && !support.ok) return fail(support.reason);
  }
  return transport === "stdio" ? resolveStdio(entry, options.env, fail) : resolveRemote(entry, transport, options.env, fail);
}

function resolveStdio(
  entry: McpServerEntry,
  env: Readonly<Record<string, string | undefined>>,
  fail: (reason: string) => ServerResolution,
): ServerResolution {
  const raw = { command: entry.command ?? "", args: entry.args ?? [], env: entry.env ?? {}, cwd: entry.cwd };
  const { value, missing } = expandDeep(raw, env);
  if (missing.length > 0) return fail(missingMessage(missing));
  if (value.command.trim() === "") return fail("the command is empty after variable expansion");
  // A sandboxed server gets no host variable: the sandbox gives its own PATH and HOME.
  const sandboxed = entry.sandbox === true;
  const childEnv: Record<string, string> = {};
  for (const name of sandboxed ? [] : inheritedVariables) {
    const hostValue = env[name];
    if (hostValue !== undefined) childEnv[name] = hostValue;
  }
  Object.assign(childEnv, value.env);
  const config: ResolvedServerConfig = {
    transport: "stdio",
    command: value.command,
    args: [...value.args],
    env: childEnv,
    ...(value.cwd ? { cwd: value.cwd } : {}),
    ...(sandboxed ? { sandbox: { network: [...(entry.network ?? [])] } } : {}),
  };
  return { ok: true, config };
}

function resolveRemote(
  entry: McpServerEntry,
  transport: Exclude<McpTransportKind, "stdio">,
  env: Readonly<Record<string, string | undefined>>,
  fail: (reason: string) => ServerResolution,
): ServerResolution {
  const { value, missing } = expandDeep({ url: entry.url ?? "", headers: entry.headers ?? {} }, env);
  const oauth = resolveOAuthSettings(entry.oauth, env);
  const allMissing = [...new Set([...missing, ...(oauth.ok ? [] : (oauth.missing ?? []))])];
  if (allMissing.length > 0) return fail(missingMessage(allMissing));
  if (!oauth.ok) return fail(oauth.reason);
  if (value.url.trim() === "") return fail("the url is empty after variable expansion");
  let parsed: URL;
  try {
    parsed = new URL(value.url);
  } catch {
    return fail("the url is not a valid URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return fail(`the url must be http: or https: (got '${parsed.protocol}')`);
  }
  return { ok: true, config: { transport, url: parsed.href, headers: { ...value.headers }, ...(oauth.settings ? { oauth: oauth.settings } : {}) } };
}

function stdioShapeProblem(entry: McpServerEntry): string | undefined {
  if (entry.command === undefined) return "a stdio server needs a 'command'";
  if (typeof entry.command !== "string") return `'command' must be a string (got ${typeName(entry.command)})`;
  if (entry.command.trim() === "") return "'command' is empty";
  if (entry.args !== undefined && !(Array.isArray(entry.args) && entry.args.every((a) => typeof a === "string"))) {
    return `'args' must be a list of strings (got ${typeName(entry.args)})`;
  }
  if (entry.env !== undefined && !isStringRecord(entry.env)) return `'env' must map names to strings (got ${typeName(entry.env)})`;
  if (entry.cwd !== undefined && typeof entry.cwd !== "string") return `'cwd' must be a string (got ${typeName(entry.cwd)})`;
  if (entry.sandbox !== undefined && typeof entry.sandbox !== "boolean") return `'sandbox' must be true or false (got ${typeName(entry.sandbox)})`;
  if (entry.sandbox === true && entry.network !== undefined) {
    if (!Array.isArray(entry.network)) return `'network' must be a list of host patterns (got ${typeName(entry.network)})`;
    const bad = entry.network.find((host) => typeof host !== "string" || host.length > networkPattern.maxLength || !hostPattern.test(host));
    if (bad !== undefined) return `'network' has ${typeName(bad)}, which is not a host pattern (host, host:port, *.domain or *.domain:port)`;
  }
  return undefined;
}

function remoteShapeProblem(entry: McpServerEntry): string | undefined {
  if (entry.url === undefined) return `a ${String(entry.type ?? "remote")} server needs a 'url'`;
  if (typeof entry.url !== "string") return `'url' must be a string (got ${typeName(entry.url)})`;
  if (entry.url.trim() === "") return "'url' is empty";
  if (entry.headers !== undefined && !isStringRecord(entry.headers)) {
    return `'headers' must map names to strings (got ${typeName(entry.headers)})`;
  }
  return undefined;
}

function missingMessage(missing: readonly string[]): string {
  const names = missing.map((name) => `$${name}`).join(", ");
  return missing.length === 1 ? `environment variable ${names} is not set` : `environment variables ${names} are not set`;
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return !!value && typeof value === "object" && !Array.isArray(value) && Object.values(value).every((v) => typeof v === "string");
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `${typeof value} ${JSON.stringify(value)}`;
}

import fs from "node:fs";
import path from "node:path";
import { load as parseYaml, YAMLException } from "js-yaml";
import { ThinktankError } from "../errors/thinktank-error.js";
import { configValidator } from "./config-validator.js";
import type { Config } from "./config-types.js";

export interface LoadConfigOptions {
  /** The environment to read overrides from (an entry point passes process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Folder to resolve `./config.yaml` and relative paths against when THINKTANK_CONFIG is unset. @default process.cwd() */
  cwd?: string;
  /** An explicit config file; wins over THINKTANK_CONFIG. */
  configPath?: string;
}

/**
 * Finds, parses, validates and freezes the configuration. `$THINKTANK_CONFIG`, else
 * `./config.yaml`, else the embedded defaults. Env overrides (GATEWAY_PORT, AGENT_PORT,
 * GATEWAY_HOST, AGENT_HOST, THINKTANK_DATA_DIR, THINKTANK_LOG_LEVEL, THINKTANK_AGENT_URL) win over the file.
 * Any problem throws CONFIG_INVALID naming the file, the key path and the reason.
 */
export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? {};
  const cwd = options.cwd ?? process.cwd();
  const explicit = options.configPath ?? env.THINKTANK_CONFIG;
  const configPath = explicit ? path.resolve(cwd, explicit) : path.join(cwd, "config.yaml");
  const exists = fs.existsSync(configPath);
  if (explicit && !exists) {
    throw new ThinktankError("CONFIG_INVALID", `${configPath}: config file not found (from ${options.configPath ? "the command line" : "THINKTANK_CONFIG"})`);
  }
  const raw = exists ? readYaml(configPath) : {};
  applyEnvOverrides(raw, env, exists ? configPath : "(embedded defaults)");
  const deprecations = applyDeprecatedKeys(raw, exists ? configPath : "(embedded defaults)");
  const validate = configValidator();
  if (!validate(raw)) {
    const where = exists ? configPath : "(embedded defaults)";
    const problems = (validate.errors ?? []).map((e) => {
      const key = e.instancePath.replaceAll("/", ".").replace(/^\./, "") || "(top level)";
      const extra = e.keyword === "additionalProperties" ? ` '${String(e.params.additionalProperty)}'` : "";
      const allowed = e.keyword === "enum" ? ` (${(e.params.allowedValues as unknown[]).join(", ")})` : "";
      return `${where}: ${key}: ${e.message}${extra}${allowed}`;
    });
    throw new ThinktankError("CONFIG_INVALID", problems.join("\n"), { details: { problems } });
  }
  checkJwtAlgorithms(raw as unknown as Config, exists ? configPath : "(embedded defaults)");
  const baseDir = exists ? path.dirname(configPath) : cwd;
  return deepFreeze({ ...resolvePaths(raw as unknown as Config, baseDir, exists ? configPath : undefined, env), deprecations });
}

/** Old spellings still load: each becomes its new key (unless that is set too) and one warning line. */
function applyDeprecatedKeys(raw: Record<string, unknown>, where: string): string[] {
  const warnings: string[] = [];
  const plugins = raw.plugins;
  if (plugins && typeof plugins === "object" && !Array.isArray(plugins) && "stdio_servers" in plugins) {
    const section = plugins as Record<string, unknown>;
    const old = section.stdio_servers;
    if (section.host_programs === undefined && old === "deny") section.host_programs = "deny";
    warnings.push(
      `${where}: plugins.stdio_servers is deprecated: use plugins.host_programs (allow | sandbox | deny), which covers a plugin's stdio MCP servers, script tools and hooks` +
        (old === "deny" ? (section.host_programs === "deny" ? "; stdio_servers: deny is read as host_programs: deny" : "; host_programs is set too, so stdio_servers is ignored") : ""),
    );
  }
  return warnings;
}

/** Signature algorithms auth.jwt may accept: asymmetric ones only. */
const asymmetricAlgorithms = new Set(["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "ES256K", "EdDSA", "Ed25519"]);

/**
 * `none` would accept unsigned tokens; an HS* (symmetric) algorithm verifies with a shared secret,
 * and with keys from a JWKS it would let anyone sign with the provider's public key (key confusion).
 */
function checkJwtAlgorithms(config: Config, where: string): void {
  for (const algorithm of config.auth.jwt?.algorithms ?? []) {
    if (asymmetricAlgorithms.has(algorithm)) continue;
    const why =
      algorithm.toLowerCase() === "none"
        ? "accepts unsigned tokens"
        : /^HS/i.test(algorithm)
          ? "is symmetric (a shared secret; with the issuer's published keys anyone could sign tokens: key confusion)"
          : "is not a supported asymmetric signature algorithm";
    throw new ThinktankError("CONFIG_INVALID", `${where}: auth.jwt.algorithms: '${algorithm}' ${why}; use RS*, PS*, ES* or EdDSA`);
  }
}

function readYaml(file: string): Record<string, unknown> {
  const text = fs.readFileSync(file, "utf8");
  // An empty file or one of comments alone (every setting commented out) is all defaults; js-yaml 5 calls it no document.
  if (/^(\s*(#.*)?(\r?\n|$))*$/.test(text.replace(/^\uFEFF/, ""))) return {};
  let parsed: unknown;
  try {
    parsed = parseYaml(text, { filename: file });
  } catch (error) {
    const reason = error instanceof YAMLException ? error.message : String(error);
    throw new ThinktankError("CONFIG_INVALID", `${file}: not valid YAML: ${reason}`, { cause: error });
  }
  if (parsed === undefined || parsed === null) return {};
  if (typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ThinktankError("CONFIG_INVALID", `${file}: (top level): must be a mapping of keys`);
  }
  return parsed as Record<string, unknown>;
}

function applyEnvOverrides(raw: Record<string, unknown>, env: Readonly<Record<string, string | undefined>>, where: string): void {
  const section = (key: string): Record<string, unknown> => {
    const current = raw[key];
    if (current && typeof current === "object" && !Array.isArray(current)) return current as Record<string, unknown>;
    raw[key] = {};
    return raw[key] as Record<string, unknown>;
  };
  const portFrom = (name: string): number | undefined => {
    const value = env[name];
    if (value === undefined || value === "") return undefined;
    if (!/^\d+$/.test(value) || Number(value) > 65535) {
      throw new ThinktankError("CONFIG_INVALID", `${where}: ${name}=${value}: must be a port number (0-65535)`);
    }
    return Number(value);
  };
  const gatewayPort = portFrom("GATEWAY_PORT");
  if (gatewayPort !== undefined) section("gateway").port = gatewayPort;
  const agentPort = portFrom("AGENT_PORT");
  if (agentPort !== undefined) section("agent").port = agentPort;
  if (env.GATEWAY_HOST) section("gateway").host = env.GATEWAY_HOST;
  if (env.AGENT_HOST) section("agent").host = env.AGENT_HOST;
  if (env.THINKTANK_DATA_DIR) raw.data_dir = env.THINKTANK_DATA_DIR;
  if (env.THINKTANK_LOG_LEVEL) section("log").level = env.THINKTANK_LOG_LEVEL;
  if (env.THINKTANK_AGENT_URL) section("console").agent_url = env.THINKTANK_AGENT_URL;
}

function resolvePaths(raw: Config, baseDir: string, configPath: string | undefined, env: Readonly<Record<string, string | undefined>>): Config {
  const at = (p: string | undefined, fallback: string): string => path.resolve(baseDir, p ?? fallback);
  const dataDir = at(raw.data_dir, ".thinktank");
  const under = (p: string | undefined, name: string): string => (p ? path.resolve(baseDir, p) : path.join(dataDir, name));
  const apiKey = env.THINKTANK_API_KEY;
  return {
    ...raw,
    config_path: configPath,
    base_dir: baseDir,
    api_key: apiKey === undefined || apiKey === "" ? undefined : apiKey,
    env: { ...env },
    data_dir: dataDir,
    extensions_config: at(raw.extensions_config, "extensions_config.json"),
    log: { ...raw.log, dir: under(raw.log.dir, "logs") },
    skills: { ...raw.skills, path: at(raw.skills.path, "skills") },
    plugins: { ...raw.plugins, path: at(raw.plugins.path, "plugins") },
    agents: { ...raw.agents, path: at(raw.agents.path, "agents") },
    agent: { ...raw.agent, threads: { ...raw.agent.threads, sqlite_path: under(raw.agent.threads.sqlite_path, "threads.sqlite") } },
    code_execution: { ...raw.code_execution, code_api_dir: under(raw.code_execution.code_api_dir, "code-api") },
    sandbox: { ...raw.sandbox, workspaces_dir: under(raw.sandbox.workspaces_dir, "workspaces") },
    mcp: { ...raw.mcp, catalog_dir: under(raw.mcp.catalog_dir, "catalog") },
    tools: { ...raw.tools, scripts_dir: at(raw.tools.scripts_dir, "tools") },
    models: { default: raw.models.default, providers: raw.models.providers },
  };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

import { protectedReference, serviceSecretVariables } from "@thinktank/core";
import { resolveServerConfig, type McpServerEntry, type StdioSandboxAvailability } from "@thinktank/mcp";
import type { LoadedPlugin, PluginServerTransport } from "../plugin-types.js";

export type PluginServerStatus = "available" | "unavailable" | "shadowed" | "denied";

/**
 * config.plugins.host_programs: whether a plugin's programs run at all (`deny`), and where its stdio
 * servers run: on the host (`allow`) or in the sandbox (`sandbox`).
 */
export type PluginHostPrograms = "allow" | "sandbox" | "deny";

/** The program a stdio server starts, exactly as the MCP manager will spawn it (placeholders other than the plugin root unresolved). */
export interface PluginServerProgram {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
}

/** A plugin's server as it joins the agent's servers. */
export interface MergedPluginServer {
  /** `<plugin>:<server>`. */
  readonly name: string;
  readonly plugin: string;
  readonly server: string;
  readonly file: string;
  readonly transport: PluginServerTransport | undefined;
  readonly typeFieldAbsent: boolean;
  /**
   * The entry handed to the MCP manager: as written, with `${CLAUDE_PLUGIN_ROOT}` replaced by the
   * plugin's folder; a stdio server also gets CLAUDE_PLUGIN_ROOT in its env and, without a cwd of
   * its own, the plugin folder as cwd. Other placeholders stay: the manager resolves them at
   * connect time, in memory. An unusable server carries `unavailable_reason`.
   */
  readonly entry: McpServerEntry;
  /** The entry exactly as the plugin wrote it (for display, after masking). */
  readonly declared: Readonly<Record<string, unknown>>;
  /**
   * `available`: usable as far as config goes; `unavailable`: see reason; `shadowed`: a configured
   * server has this name; `denied`: a stdio server while plugins.host_programs is `deny`.
   */
  readonly status: PluginServerStatus;
  /** For a stdio server: the program and arguments it runs on this host once the plugin is enabled. */
  readonly program?: PluginServerProgram;
  readonly reason?: string;
}

/** A plugin server left out because a configured server has the same name. */
export interface PluginServerConflict {
  readonly name: string;
  readonly plugin: string;
  readonly server: string;
  readonly message: string;
}

export interface PluginServerMerge {
  /** Every server of every plugin given, in plugin then file order, with its status. */
  readonly servers: readonly MergedPluginServer[];
  /** What joins the configured servers: every plugin server not shadowed (unavailable ones carry their reason). */
  readonly entries: Readonly<Record<string, McpServerEntry>>;
  readonly conflicts: readonly PluginServerConflict[];
}

export interface MergePluginServersOptions {
  /** The configured `mcpServers` of extensions_config.json; a configured name always wins. @default {} */
  readonly configured?: Readonly<Record<string, unknown>>;
  /** The variables `${VAR}` placeholders will be resolved from (pass config.env): used to tell which servers are usable. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * config.plugins.host_programs. `deny`: stdio servers are listed as `denied` and carry
   * `unavailable_reason`, so none is ever spawned; `sandbox`: their entries get `sandbox: true`,
   * which the MCP manager runs in the sandbox or not at all. @default "allow"
   */
  readonly hostPrograms?: PluginHostPrograms;
  /**
   * Whether the MCP manager runs stdio servers in the sandbox (see resolveServerConfig): true, or
   * whether it can on this host (an availability with the reason, e.g. the deno backend). @default false
   */
  readonly sandboxedStdio?: boolean | StdioSandboxAvailability;
  /**
   * The service's secrets (serviceSecretVariables(config) of @thinktank/core: `THINKTANK_*` and the
   * model, embeddings and web-search key variables). @default serviceSecretVariables()
   */
  readonly serviceSecrets?: (name: string) => boolean;
  /** Whether an administrator marked the plugin trusted (`plugins.<name>.trusted`). @default no plugin is */
  readonly trusted?: (plugin: string) => boolean;
}

const deniedReason = "plugins.host_programs is 'deny' in config.yaml: stdio MCP servers from plugins never run on this host";

const rootPlaceholder = "${CLAUDE_PLUGIN_ROOT}";

/**
 * Which variables a plugin's server entry may not name in a placeholder: expanded into its URL,
 * headers, arguments or env at connect time, a secret would go to whoever the plugin's author chose,
 * even with host_programs: deny. Thinktank's own (`THINKTANK_*`) never; the model and other keys of
 * the service only for a plugin an administrator marked trusted.
 */
function refusedVariables(trusted: boolean, serviceSecrets: (name: string) => boolean): (name: string) => boolean {
  return trusted ? (name) => name.startsWith("THINKTANK_") : serviceSecrets;
}

/**
 * Merges the MCP servers of (enabled) plugins into the agent's servers as `<plugin>:<server>`.
 * Each server is checked the way the MCP manager will resolve it (the same function), so one
 * that cannot be used (empty url, unset variable, unknown type) is listed as unavailable with
 * the reason and never breaks the others. A configured server of the same name wins; the
 * clash is reported in `conflicts`.
 */
export function mergePluginServers(plugins: readonly LoadedPlugin[], options: MergePluginServersOptions): PluginServerMerge {
  const configured = options.configured ?? {};
  const servers: MergedPluginServer[] = [];
  const entries: Record<string, McpServerEntry> = {};
  const conflicts: PluginServerConflict[] = [];
  const serviceSecrets = options.serviceSecrets ?? serviceSecretVariables();
  for (const plugin of plugins) {
    const refused = refusedVariables(options.trusted?.(plugin.name) === true, serviceSecrets);
    for (const definition of plugin.servers) {
      const name = `${plugin.name}:${definition.name}`;
      const rooted = withPluginRoot(definition.entry, plugin.root, definition.transport);
      const prepared: McpServerEntry = definition.transport === "stdio" && options.hostPrograms === "sandbox" ? { ...rooted, sandbox: true } : rooted;
      const program = definition.transport === "stdio" ? programOf(prepared) : undefined;
      const base = {
        name,
        plugin: plugin.name,
        server: definition.name,
        file: definition.file,
        transport: definition.transport,
        typeFieldAbsent: definition.typeFieldAbsent,
        declared: definition.entry,
        ...(program ? { program } : {}),
      };
      if (Object.hasOwn(configured, name)) {
        const message = `plugin '${plugin.name}' server '${definition.name}' is not used: a configured server is named '${name}'`;
        conflicts.push({ name, plugin: plugin.name, server: definition.name, message });
        servers.push({ ...base, entry: prepared, status: "shadowed", reason: message });
        continue;
      }
      if (definition.transport === "stdio" && options.hostPrograms === "deny") {
        entries[name] = { ...prepared, unavailable_reason: deniedReason };
        servers.push({ ...base, entry: entries[name], status: "denied", reason: deniedReason });
        continue;
      }
      const secret = protectedReference(definition.entry, refused);
      if (secret !== undefined) {
        const reason = secret.startsWith("THINKTANK_")
          ? `it refers to $${secret}, Thinktank's own secret, which no plugin server is given`
          : `it refers to $${secret}, a secret of this service, which only a plugin an administrator marked trusted may be given`;
        entries[name] = { ...prepared, unavailable_reason: reason };
        servers.push({ ...base, entry: entries[name], status: "unavailable", reason });
        continue;
      }
      const resolution = resolveServerConfig(prepared, { env: options.env, ...(options.sandboxedStdio !== undefined ? { sandboxedStdio: options.sandboxedStdio } : {}) });
      const entry: McpServerEntry = resolution.ok ? prepared : { ...prepared, unavailable_reason: resolution.reason };
      entries[name] = entry;
      servers.push(resolution.ok ? { ...base, entry, status: "available" } : { ...base, entry, status: "unavailable", reason: resolution.reason });
    }
  }
  return { servers, entries, conflicts };
}

function programOf(entry: McpServerEntry): PluginServerProgram | undefined {
  const fields = entry as Readonly<Record<string, unknown>>;
  if (typeof fields.command !== "string") return undefined;
  const args = Array.isArray(fields.args) ? fields.args.map(String) : [];
  return { command: fields.command, args, cwd: typeof fields.cwd === "string" ? fields.cwd : "" };
}

/** Replaces `${CLAUDE_PLUGIN_ROOT}` in the fields that take paths and placeholders; gives stdio servers their plugin context. */
function withPluginRoot(entry: Readonly<Record<string, unknown>>, root: string, transport: PluginServerTransport | undefined): McpServerEntry {
  const replace = (value: unknown): unknown => {
    if (typeof value === "string") return value.replaceAll(rootPlaceholder, root);
    if (Array.isArray(value)) return value.map(replace);
    if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, replace(child)]));
    return value;
  };
  const prepared: Record<string, unknown> = { ...entry };
  for (const field of ["command", "args", "env", "cwd", "url", "headers"]) {
    if (prepared[field] !== undefined) prepared[field] = replace(prepared[field]);
  }
  if (transport === "stdio") {
    const env = prepared.env && typeof prepared.env === "object" && !Array.isArray(prepared.env) ? (prepared.env as Record<string, unknown>) : {};
    if (prepared.env === undefined || prepared.env === env) prepared.env = { CLAUDE_PLUGIN_ROOT: root, ...env };
    prepared.cwd ??= root;
  }
  return prepared as McpServerEntry;
}

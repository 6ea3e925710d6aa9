import path from "node:path";
import { maskServerEntry } from "@thinktank/core";
import type { SlashCommandEntry } from "../commands/slash-command-entry.js";
import type { LoadedPlugin, PluginProblem } from "../plugin-types.js";
import type { MergedPluginServer, PluginHostPrograms } from "../servers/merge-plugin-servers.js";
import { listPluginHooks, type PluginHookView } from "./hook-listing.js";
import type { PluginTrust } from "../snapshot/plugin-enablement.js";
import { skillContainerPrefix } from "../snapshot/skill-container-prefix.js";
import type { PluginVersionsView } from "./plugin-versions.js";
import type { ListingCost } from "@thinktank/skills";

/** `enabled`, `disabled`, or `invalid` (installed but with errors: left out of the agent). */
export type PluginState = "enabled" | "disabled" | "invalid";

/** One row of GET /api/plugins. */
export interface PluginSummaryView {
  readonly name: string;
  readonly version?: string;
  readonly description?: string;
  readonly enabled: boolean;
  /** An administrator marked the plugin trusted (`plugins.<name>.trusted`): its skills' scripts run as trusted code. */
  readonly trusted: boolean;
  /** Its skills' script tools run without asking first in every thread (`plugins.<name>.scripts_approved`). */
  readonly scripts_approved: boolean;
  readonly state: PluginState;
  readonly counts: { readonly skills: number; readonly commands: number; readonly agents: number; readonly hooks: number; readonly servers: number };
  readonly problems: { readonly errors: number; readonly warnings: number };
}

/** GET /api/plugins/:name. */
export interface PluginDetailView extends Omit<PluginSummaryView, "counts" | "problems"> {
  readonly manifest: Readonly<Record<string, unknown>>;
  readonly manifestSource: "file" | "folder";
  readonly skills: readonly Record<string, unknown>[];
  readonly commands: readonly Record<string, unknown>[];
  readonly agents: readonly Record<string, unknown>[];
  /**
   * `items`: the matcher groups as written (secrets masked); `handlers`: each hook with whether it
   * runs here and why not; `executed`: whether any does.
   */
  readonly hooks: { readonly executed: boolean; readonly note: string; readonly items: readonly Record<string, unknown>[]; readonly handlers: readonly PluginHookView[] };
  readonly servers: readonly Record<string, unknown>[];
  readonly problems: readonly PluginProblem[];
  /** For a plugin installed from a marketplace added by name: the installed and the available version. */
  readonly versions?: PluginVersionsView;
  /** What it adds to what the model is sent, in the full and the compact listing (pluginListingCost). */
  readonly context_cost?: ListingCost;
  /** After an update: the version a rollback restores (POST /api/plugins/:name/rollback). */
  readonly rollback?: { readonly version?: string };
}

const hooksNote =
  "Command hooks of the events this agent fires (SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop) run in the sandbox, trusted plugin or not; `handlers` says for each hook whether it runs here and why not. Prompt and agent hooks are listed, never run.";

export function summaryView(plugin: LoadedPlugin, enabled: boolean, trust: PluginTrust): PluginSummaryView {
  const errors = plugin.problems.filter((p) => p.severity === "error").length;
  return {
    name: plugin.name,
    ...(typeof plugin.manifest.version === "string" ? { version: plugin.manifest.version } : {}),
    ...(typeof plugin.manifest.description === "string" ? { description: plugin.manifest.description } : {}),
    enabled,
    trusted: trust.trusted,
    scripts_approved: trust.scriptsApproved,
    state: stateOf(errors, enabled),
    counts: { skills: plugin.skills.length, commands: plugin.commands.length, agents: plugin.agents.length, hooks: plugin.hooks.length, servers: plugin.servers.length },
    problems: { errors, warnings: plugin.problems.length - errors },
  };
}

export function detailView(
  plugin: LoadedPlugin,
  enabled: boolean,
  trust: PluginTrust,
  servers: readonly MergedPluginServer[],
  options: { readonly containerPath: string; readonly hostPrograms?: PluginHostPrograms },
): PluginDetailView {
  const { containerPath } = options;
  const summary = summaryView(plugin, enabled, trust);
  const handlers = listPluginHooks(plugin, options.hostPrograms ? { hostPrograms: options.hostPrograms } : {});
  return {
    name: summary.name,
    ...(summary.version !== undefined ? { version: summary.version } : {}),
    ...(summary.description !== undefined ? { description: summary.description } : {}),
    enabled,
    trusted: summary.trusted,
    scripts_approved: summary.scripts_approved,
    state: summary.state,
    manifest: maskManifest(plugin.manifest),
    manifestSource: plugin.manifestSource,
    skills: plugin.skills.map((skill) => {
      const root = plugin.skillRoots.find((r) => skill.dir === r || skill.dir.startsWith(`${r}/`)) ?? "skills";
      const inside = skill.dir.slice(root.length + 1);
      return {
        name: skill.name,
        identity: skill.identity,
        description: skill.description,
        file: skill.file,
        containerPath: path.posix.join(containerPath, skillContainerPrefix(plugin.name, root), inside, "SKILL.md"),
        nested: skill.nested,
        ...(skill.parentDir ? { parentDir: skill.parentDir } : {}),
        userInvocable: skill.userInvocable,
        ...(skill.argumentHint !== undefined ? { argumentHint: skill.argumentHint } : {}),
        ...(skill.allowedTools ? { allowedTools: skill.allowedTools } : {}),
      };
    }),
    commands: plugin.commands.map((command) => ({
      name: command.name,
      invocation: `/${plugin.name}:${command.name}`,
      description: command.description,
      file: command.file,
      ...(command.argumentHint !== undefined ? { argumentHint: command.argumentHint } : {}),
      ...(command.allowedTools ? { allowedTools: command.allowedTools } : {}),
      ...(command.model ? { model: command.model } : {}),
      disableModelInvocation: command.disableModelInvocation,
    })),
    agents: plugin.agents.map((agent) => ({
      name: agent.name,
      description: agent.description,
      file: agent.file,
      ...(agent.tools ? { tools: agent.tools } : {}),
      ...(agent.model ? { model: agent.model } : {}),
    })),
    hooks: {
      executed: handlers.some((hook) => hook.runs),
      note: hooksNote,
      handlers,
      items: plugin.hooks.map((hook) => ({ event: hook.event, ...(hook.matcher !== undefined ? { matcher: hook.matcher } : {}), file: hook.file, handlers: hook.handlers.map((h) => maskServerEntry(h)) })),
    },
    servers: servers.map(serverView),
    problems: plugin.problems,
  };
}

/**
 * The manifest as written, except that servers declared inline (`mcpServers`, `lspServers` as
 * objects of entries) are masked as every server entry is: their env and header values and
 * secret-looking arguments came back in clear here while `servers` masked the same entries.
 */
function maskManifest(manifest: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const masked: Record<string, unknown> = { ...manifest };
  for (const key of ["mcpServers", "lspServers"]) {
    const servers = manifest[key];
    if (servers === null || typeof servers !== "object" || Array.isArray(servers)) continue;
    masked[key] = Object.fromEntries(
      Object.entries(servers as Record<string, unknown>).map(([name, entry]) => [name, entry !== null && typeof entry === "object" && !Array.isArray(entry) ? maskServerEntry(entry as Record<string, unknown>) : entry]),
    );
  }
  return masked;
}

/** A plugin server for display: the entry as written, secrets masked, with its status. */
export function serverView(server: MergedPluginServer): Record<string, unknown> {
  return {
    name: server.name,
    server: server.server,
    transport: server.transport ?? "unknown",
    ...(server.typeFieldAbsent ? { typeFieldAbsent: true } : {}),
    status: server.status,
    ...(server.reason ? { reason: server.reason } : {}),
    file: server.file,
    config: maskServerEntry(server.declared),
    // What installing trusted: the exact program this server runs on the host (secret-looking arguments masked).
    ...(server.program ? { runs: maskServerEntry({ command: server.program.command, args: server.program.args, cwd: server.program.cwd }) } : {}),
  };
}

/** GET /api/plugins/:name/commands: what a user can type, commands and user-invocable skills. */
export function commandView(entry: SlashCommandEntry): Record<string, unknown> {
  return {
    invocation: entry.invocation,
    kind: entry.kind,
    name: entry.name,
    description: entry.description,
    file: entry.file,
    ...(entry.argumentHint !== undefined ? { argumentHint: entry.argumentHint } : {}),
    ...(entry.allowedTools ? { allowedTools: entry.allowedTools } : {}),
    ...(entry.model ? { model: entry.model } : {}),
    ...(entry.identity ? { identity: entry.identity } : {}),
  };
}

function stateOf(errors: number, enabled: boolean): PluginState {
  if (errors > 0) return "invalid";
  return enabled ? "enabled" : "disabled";
}

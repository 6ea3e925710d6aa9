import { hookHandlerStatus } from "../hooks/hook-handler-status.js";
import type { LoadedPlugin } from "../plugin-types.js";
import type { PluginHostPrograms } from "../servers/merge-plugin-servers.js";

/** One hook a plugin brings, as GET /api/plugins/:name shows it before anything runs. */
export interface PluginHookView {
  readonly event: string;
  /** The matcher group's matcher as written; null: every tool (or source). */
  readonly matcher: string | null;
  /** `command`, `prompt`, `agent`, ... as written. */
  readonly type: string;
  /** The command line as written (`${CLAUDE_PLUGIN_ROOT}` unexpanded); null for other types. */
  readonly command: string | null;
  /** Seconds before a command hook is stopped (its own `timeout`, else 60); null for other types. */
  readonly timeout: number | null;
  /** Hooks run in the sandbox, trusted plugin or not. */
  readonly sandboxed: true;
  readonly runs: boolean;
  /** Why it does not run. */
  readonly reason?: string;
}

/** Whether the sandbox runs a runtime here: @thinktank/sandbox's script runner `supports` fits. */
export type RuntimeAvailability = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * Every hook of `plugin`, one entry per hook (hookHandlerStatus decides, as PluginHooks does): only
 * command hooks of the events this agent fires run; with `plugins.host_programs: deny` none does.
 */
export function listPluginHooks(plugin: LoadedPlugin, options: { readonly hostPrograms?: PluginHostPrograms } = {}): PluginHookView[] {
  return plugin.hooks.flatMap((group) =>
    group.handlers.map((handler): PluginHookView => {
      const status = hookHandlerStatus(group.event, group.matcher, handler);
      const base = {
        event: group.event,
        matcher: group.matcher ?? null,
        type: handler.type,
        command: handler.type === "command" && typeof handler.command === "string" ? handler.command : null,
        timeout: status.runs ? status.timeoutSeconds : (status.timeoutSeconds ?? null),
        sandboxed: true as const,
      };
      if (!status.runs) return { ...base, runs: false, reason: status.reason };
      if (options.hostPrograms === "deny") return { ...base, runs: false, reason: "plugins.host_programs is deny: no program a plugin brings runs" };
      // A matcher refused as unsafe matches nothing: the hook never fires.
      if (status.matcher.problem) return { ...base, runs: false, reason: status.matcher.problem };
      return { ...base, runs: true };
    }),
  );
}

/**
 * Whether a sandbox backend runs plugin hooks: a command hook is a shell command line, which
 * bubblewrap runs in bash and deno in its simulated shell (just-bash, where no other program
 * exists); the local backend isolates nothing, and a plugin's hooks never run unisolated on the host.
 * The agent's hooks and GET /api/plugins/:name both follow it.
 */
export function hookBackendAvailability(backend: { readonly backend: string; readonly isolated: boolean }): RuntimeAvailability {
  if (backend.isolated) return { ok: true };
  return { ok: false, reason: `sandbox.backend is ${backend.backend}, which isolates nothing, and a plugin's hooks never run unisolated on the host; use bubblewrap or deno` };
}

/**
 * The same hooks where the sandbox cannot run a hook's command (hookBackendAvailability: the local
 * backend): such a hook does not run, with the sandbox's reason.
 */
export function hooksInSandbox(hooks: readonly PluginHookView[], shell: RuntimeAvailability): PluginHookView[] {
  if (shell.ok) return [...hooks];
  return hooks.map((hook) => (hook.runs ? { ...hook, runs: false, reason: `the sandbox cannot run it here: ${shell.reason}` } : hook));
}

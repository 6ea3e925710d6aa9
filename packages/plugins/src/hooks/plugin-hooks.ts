import type { LoadedPlugin } from "../plugin-types.js";
import { hookHandlerStatus } from "./hook-handler-status.js";
import type { HookMatcher } from "./hook-matcher.js";
import type { HookCommand, HookEventName } from "./hook-types.js";

export { defaultHookTimeoutSeconds } from "./hook-handler-status.js";

/** A hook left out when the index was built, and why (logged by the caller). */
export interface HookProblem {
  readonly plugin: string;
  readonly file: string;
  readonly event: string;
  /** `debug`: skipped by design (prompt and agent hooks, events this agent has not); `warn`: a hook that cannot run as written. */
  readonly level: "debug" | "warn";
  readonly message: string;
}

export interface PluginHooksOptions {
  /** config.plugins.host_programs: `deny` runs no hook. @default "allow" */
  readonly hostPrograms?: "allow" | "sandbox" | "deny";
}

interface IndexedHook {
  readonly command: HookCommand;
  readonly matcher: HookMatcher;
}

/**
 * The command hooks of the enabled plugins, indexed by event once per plugin snapshot, so a run
 * asks `has(event)` (one map lookup) before anything else and an event no plugin hooks costs
 * nothing. Prompt- and agent-type hooks, and events this agent does not fire (Notification,
 * SubagentStart, PreCompact, SessionEnd, ...), are left out with a problem at `debug`; a command hook
 * without a command, or a matcher refused as unsafe, at `warn`. `hostPrograms: deny` indexes none.
 */
export class PluginHooks {
  readonly problems: readonly HookProblem[];
  private readonly byEvent: ReadonlyMap<HookEventName, readonly IndexedHook[]>;

  private constructor(byEvent: ReadonlyMap<HookEventName, readonly IndexedHook[]>, problems: readonly HookProblem[]) {
    this.byEvent = byEvent;
    this.problems = problems;
  }

  static from(plugins: readonly LoadedPlugin[], options: PluginHooksOptions = {}): PluginHooks {
    if (options.hostPrograms === "deny") return new PluginHooks(new Map(), []);
    const byEvent = new Map<HookEventName, IndexedHook[]>();
    const problems: HookProblem[] = [];
    for (const plugin of plugins) {
      for (const group of plugin.hooks) {
        const problem = (level: HookProblem["level"], message: string) => problems.push({ plugin: plugin.name, file: group.file, event: group.event, level, message });
        const reported = new Set<string>();
        for (const handler of group.handlers) {
          const status = hookHandlerStatus(group.event, group.matcher, handler);
          if (!status.runs) {
            // An event this agent does not fire is one problem for its group, not one a hook.
            if (!reported.has(status.reason)) problem(status.level, status.reason);
            if (status.reason.startsWith("hook event ")) reported.add(status.reason);
            continue;
          }
          if (status.matcher.problem && !reported.has(status.matcher.problem)) {
            problem("warn", status.matcher.problem);
            reported.add(status.matcher.problem);
          }
          const command: HookCommand = {
            plugin: plugin.name,
            pluginRoot: plugin.root,
            event: status.event,
            ...(group.matcher !== undefined ? { matcher: group.matcher } : {}),
            command: status.command,
            timeoutSeconds: status.timeoutSeconds,
            file: group.file,
          };
          const list = byEvent.get(status.event) ?? [];
          list.push({ command, matcher: status.matcher });
          byEvent.set(status.event, list);
        }
      }
    }
    return new PluginHooks(byEvent, problems);
  }

  /** True when no plugin has a command hook this agent runs. */
  get isEmpty(): boolean {
    return this.byEvent.size === 0;
  }

  /** Whether any enabled plugin hooks `event` (one lookup: the hot path's only cost without hooks). */
  has(event: HookEventName): boolean {
    return this.byEvent.has(event);
  }

  /**
   * The hooks that fire for `event`: for PreToolUse and PostToolUse those whose matcher matches one
   * of the tool's names, for SessionStart one of the source's, for SubagentStop one of the agent's;
   * for the others all. A command named
   * twice by one plugin for the event runs once (Claude Code runs identical commands once).
   */
  select(event: HookEventName, names: readonly string[] = []): HookCommand[] {
    const indexed = this.byEvent.get(event);
    if (!indexed) return [];
    const selected: HookCommand[] = [];
    const seen = new Set<string>();
    for (const hook of indexed) {
      if (!hook.matcher.matches(names)) continue;
      const key = `${hook.command.plugin}\u0000${hook.command.command}`;
      if (seen.has(key)) continue;
      seen.add(key);
      selected.push(hook.command);
    }
    return selected;
  }
}

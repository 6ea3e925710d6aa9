import type { PluginHookHandler } from "../plugin-types.js";
import { compileHookMatcher, type HookMatcher } from "./hook-matcher.js";
import { hookEvents, type HookEventName } from "./hook-types.js";

/** Claude Code's default hook timeout, in seconds. */
export const defaultHookTimeoutSeconds = 60;

/** Events whose matcher selects what fires: tool names, SessionStart's source, SubagentStop's agent type. Others ignore it. */
const matchedEvents: ReadonlySet<HookEventName> = new Set(["PreToolUse", "PostToolUse", "SessionStart", "SubagentStop"]);
const knownEvents: ReadonlySet<string> = new Set(hookEvents);

/** Whether one hook of a plugin runs here: a command hook of an event this agent fires, ready to index. */
export type HookHandlerStatus =
  | { readonly runs: true; readonly event: HookEventName; readonly command: string; readonly timeoutSeconds: number; readonly matcher: HookMatcher }
  | {
      readonly runs: false;
      /** `debug`: skipped by design (prompt and agent hooks, events this agent has not); `warn`: a hook that cannot run as written. */
      readonly level: "debug" | "warn";
      readonly reason: string;
      /** The command hook's timeout, when it is one. */
      readonly timeoutSeconds?: number;
    };

/**
 * Decides for one hook (`handler`, in a matcher group of `event`) whether this agent runs it, and
 * why not: only command hooks with a command, of the events this agent fires, run. A matcher
 * refused as unsafe still indexes the hook (it matches nothing) and says so in `matcher.problem`.
 * PluginHooks (what runs) and the plugin views (what GET shows) both decide through it.
 */
export function hookHandlerStatus(event: string, matcher: string | undefined, handler: PluginHookHandler): HookHandlerStatus {
  const timeout = handler.timeout;
  const timeoutSeconds = typeof timeout === "number" && Number.isFinite(timeout) && timeout > 0 ? timeout : defaultHookTimeoutSeconds;
  const commandTimeout = handler.type === "command" ? { timeoutSeconds } : {};
  if (!knownEvents.has(event)) return { runs: false, level: "debug", reason: `hook event '${event}' is not one this agent fires; its hooks never run`, ...commandTimeout };
  if (handler.type !== "command") return { runs: false, level: "debug", reason: `a '${handler.type}' hook is not run here (only command hooks run)` };
  if (typeof handler.command !== "string" || handler.command.trim() === "") return { runs: false, level: "warn", reason: "a command hook without a 'command' string is skipped", ...commandTimeout };
  const known = event as HookEventName;
  return { runs: true, event: known, command: handler.command, timeoutSeconds, matcher: compileHookMatcher(matchedEvents.has(known) ? matcher : undefined) };
}

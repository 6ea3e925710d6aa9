import { hookToolNames, toClaudeToolInput, type HookToolCall } from "./claude-tool-input.js";
import type { HookEventName } from "./hook-types.js";

/** What every hook input carries: the session (the thread) and where the hook runs. */
export interface HookSessionFacts {
  /** The thread id. */
  readonly sessionId: string;
  /** The working folder inside the sandbox (the thread's workspace). */
  readonly cwd: string;
  /** A transcript file, when there is one; absent otherwise. */
  readonly transcriptPath?: string;
}

/** The event-specific part of an input. */
export type HookEventPayload =
  | { readonly event: "SessionStart"; readonly source: "startup" | "resume" | "clear" | "compact" }
  | { readonly event: "UserPromptSubmit"; readonly prompt: string }
  | { readonly event: "PreToolUse"; readonly call: HookToolCall }
  | { readonly event: "PostToolUse"; readonly call: HookToolCall; readonly response: unknown }
  | { readonly event: "Stop"; readonly stopHookActive: boolean }
  | { readonly event: "SubagentStop"; readonly stopHookActive: boolean; readonly agent: HookSubagent; readonly lastAssistantMessage: string };

/** The sub-agent a SubagentStop hook hears about. */
export interface HookSubagent {
  /** This delegation's id (the lead's `task` tool call id). */
  readonly id: string;
  /** Its type as Claude Code names it (`agent_type`): the agent's name, `<plugin>:<name>` for a plugin's. */
  readonly type: string;
  /** Every name a matcher may match (the type, the bare name, the identity). */
  readonly names: readonly string[];
}

/**
 * Claude Code's hook input for one event, as the JSON object written to the hook's stdin:
 * `session_id`, `transcript_path` (when there is one), `cwd`, `hook_event_name`, then per event
 * `source`; `prompt`; `tool_name`, `tool_input`, `tool_use_id` (and `tool_response` after the
 * call); `stop_hook_active`; for SubagentStop also `agent_id`, `agent_type` and
 * `last_assistant_message`.
 */
export function hookInput(facts: HookSessionFacts, payload: HookEventPayload): Record<string, unknown> {
  const common = {
    session_id: facts.sessionId,
    ...(facts.transcriptPath !== undefined ? { transcript_path: facts.transcriptPath } : {}),
    cwd: facts.cwd,
    hook_event_name: payload.event satisfies HookEventName,
  };
  switch (payload.event) {
    case "SessionStart":
      return { ...common, source: payload.source };
    case "UserPromptSubmit":
      return { ...common, prompt: payload.prompt };
    case "PreToolUse":
      return { ...common, ...toolFields(payload.call) };
    case "PostToolUse":
      return { ...common, ...toolFields(payload.call), tool_response: payload.response };
    case "Stop":
      return { ...common, stop_hook_active: payload.stopHookActive };
    case "SubagentStop":
      return { ...common, stop_hook_active: payload.stopHookActive, agent_id: payload.agent.id, agent_type: payload.agent.type, last_assistant_message: payload.lastAssistantMessage };
  }
}

function toolFields(call: HookToolCall): Record<string, unknown> {
  return { tool_name: hookToolNames(call)[0], tool_input: toClaudeToolInput(call), ...(call.id ? { tool_use_id: call.id } : {}) };
}

import { isAIMessage, type BaseMessage } from "@langchain/core/messages";
import { artifactsOf, type ThreadArtifact } from "@thinktank/files";

/** How a delegation ended. */
export type DelegationStatus = "ok" | "failed" | "timeout" | "cancelled";

/**
 * One `task` call as the thread state's `delegations` channel records it (snake_case: it is read
 * through GET /threads/:id/state): which agent ran what, how it ended, its tokens and how long it took.
 */
export interface Delegation {
  readonly tool_call_id: string;
  /** The agent's identity (`plugin:brand-voice:quality-assurance`); the name as asked when none was found. */
  readonly agent: string;
  readonly description: string;
  readonly status: DelegationStatus;
  /** The sub-agent's model tokens: what its models reported, else counted (o200k) over what each call was sent and answered. */
  readonly input_tokens: number;
  readonly output_tokens: number;
  /** Whether the tokens were counted here because the model reported none. */
  readonly tokens_estimated: boolean;
  /** From the sub-agent's start (a free slot) to its answer. */
  readonly duration_ms: number;
  /** How long the call waited for a slot (subagents.max_concurrent) before it started. */
  readonly queued_ms: number;
  /** 1 for the lead's delegations, 2 for a sub-agent's, ... */
  readonly depth: number;
  /** The error's text when it did not end `ok`. */
  readonly error?: string;
}

/** The `delegations` reducer: records in the order they ended, a record for the same tool call replacing the earlier one. */
export function mergeDelegations(current: readonly Delegation[], next: readonly Delegation[] | undefined): Delegation[] {
  const added = (Array.isArray(next) ? next : []).filter((entry): entry is Delegation => typeof entry?.tool_call_id === "string");
  if (added.length === 0) return [...current];
  const ids = new Set(added.map((entry) => entry.tool_call_id));
  return [...current.filter((entry) => !ids.has(entry.tool_call_id)), ...added];
}

/** The files a sub-agent presented (present_files), which a task answer carries for the lead's state and next answer; none for an error. */
export function delegatedArtifacts(message: { readonly artifact?: unknown; readonly status?: string }): ThreadArtifact[] {
  if (message.status === "error") return [];
  const artifact = message.artifact as { artifacts?: unknown } | undefined;
  return artifact && typeof artifact === "object" ? artifactsOf(artifact.artifacts) : [];
}

/** The delegation a task tool message carries (its artifact), if any. */
export function delegationOf(message: { readonly artifact?: unknown }): Delegation | undefined {
  const artifact = message.artifact as { delegation?: Delegation } | undefined;
  const delegation = artifact && typeof artifact === "object" ? artifact.delegation : undefined;
  return delegation && typeof delegation.tool_call_id === "string" ? delegation : undefined;
}

/**
 * The delegations of a cancelled run's task calls (ThreadService's cancelledValues): each open
 * `task` call the cancel answered is recorded `cancelled`, with the agent as it was asked for
 * (the run ended before its answer, so its tokens and time are not known).
 */
export function cancelledDelegations(answers: readonly { readonly tool_call_id: string; readonly name?: string }[], messages: readonly BaseMessage[]): { delegations: Delegation[] } | undefined {
  const calls = new Map(messages.flatMap((message) => (isAIMessage(message) ? (message.tool_calls ?? []) : [])).map((call) => [call.id, call]));
  const delegations = answers.flatMap((answer): Delegation[] => {
    const call = calls.get(answer.tool_call_id);
    if (answer.name !== "task" || !call) return [];
    const args = call.args as { subagent_type?: unknown; description?: unknown };
    const agent = typeof args.subagent_type === "string" ? args.subagent_type : "";
    const description = typeof args.description === "string" ? args.description : "";
    return [{ tool_call_id: answer.tool_call_id, agent, description, status: "cancelled", input_tokens: 0, output_tokens: 0, tokens_estimated: false, duration_ms: 0, queued_ms: 0, depth: 1, error: "the run was cancelled" }];
  });
  return delegations.length > 0 ? { delegations } : undefined;
}

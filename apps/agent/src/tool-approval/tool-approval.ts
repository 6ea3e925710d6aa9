import { AIMessage, ToolMessage, isAIMessage, type BaseMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { interrupt } from "@langchain/langgraph";
import type { Config, ErrorCode } from "@thinktank/core";
import { scriptApproval } from "@thinktank/skills";
import { decisionsFromResume, reviewConfigFor, type ActionRequest, type ReviewConfig, type ReviewDecision } from "../graph/human-review.js";
import { scriptFingerprint, scriptToolFacts, type ScriptToolFacts } from "./script-tool-facts.js";

/** `tools.approval`: which script tools ask before their first call in a thread. */
export type ToolApprovalPolicy = Config["tools"]["approval"];

type ToolCall = NonNullable<AIMessage["tool_calls"]>[number];

/** The code a refused call's error tool message starts with. */
const rejectedCode = "TOOL_REJECTED" satisfies ErrorCode;

/** Our own account of one action request, beside LangChain's fields (same order as `action_requests`). */
export interface ToolApprovalDetails {
  readonly tool: string;
  /** The skill's identity (`custom:words`); null for a registered tool. */
  readonly skill: string | null;
  readonly plugin: string | null;
  readonly trusted: boolean;
  readonly runtime: string;
  readonly network: readonly string[];
  /** The names of the environment variables the script gets. */
  readonly env: readonly string[];
  readonly policy: ToolApprovalPolicy;
  /** Why approval is asked, in a sentence. */
  readonly reason: string;
}

/** The interrupt value: LangChain's human-in-the-loop shape (human-review.ts) plus `tool_approvals`. */
export interface ToolApprovalInterrupt {
  readonly action_requests: readonly ActionRequest[];
  readonly review_configs: readonly ReviewConfig[];
  readonly tool_approvals: readonly ToolApprovalDetails[];
}

/** What the tools node runs after review, and what it writes. */
export interface ToolCallReview {
  /** The messages the tools node runs on: the last AI message with any edited arguments, then an error tool message for each call that must not run. */
  readonly messages: readonly BaseMessage[];
  /** What the review adds to the thread: the edited AI message (same id, replacing it) and those tool messages. */
  readonly written: readonly BaseMessage[];
  /** Approval keys to remember for the thread. */
  readonly approved: readonly string[];
}

/**
 * How a thread remembers an approval: `<skill identity>/<tool>@<fingerprint>`, or
 * `registered/<tool>@<fingerprint>`: the approval holds for that script as it was reviewed
 * (scriptFingerprint), so a changed script asks again.
 */
export function approvalKey(toolName: string, facts: ScriptToolFacts): string {
  return `${facts.skill?.identity ?? "registered"}/${toolName}@${scriptFingerprint(facts)}`;
}

/** Whether a call of this tool asks first: a script tool, under the policy, not approved for its skill (scripts_approved) or for this thread. */
export function needsApproval(toolName: string, facts: ScriptToolFacts | undefined, policy: ToolApprovalPolicy, approved: ReadonlySet<string>): facts is ScriptToolFacts {
  // The same rule GET /api/skills/:name shows as `approval` (scriptApproval of @thinktank/skills).
  if (!facts || scriptApproval(policy, facts) !== "per-thread") return false;
  return !approved.has(approvalKey(toolName, facts));
}

/**
 * Reviews the tool calls of the last AI message before any of them runs. Calls that need approval
 * (needsApproval) are put to the user in one interrupt, one action request each, in call order;
 * the run pauses there and, once resumed, each call gets its decision: `approve` runs it, `edit`
 * runs it with the edited arguments (same tool only), `reject` answers it with an error tool
 * message carrying the reviewer's message. A decision that is not understood is a rejection that
 * says so, and so is every decision of an answer whose count differs from the requests' (as
 * LangChain's middleware refuses it: the decisions could not be matched to the calls with
 * certainty). Nothing runs without a clear approval. Calls that need none pass as they are.
 * With `ask: false` (a sub-agent, whose interrupt the lead could not resume) nothing is put to the
 * user: each call that needs approval is answered with an error tool message saying so.
 */
export function reviewToolCalls(messages: readonly BaseMessage[], tools: readonly StructuredToolInterface[], policy: ToolApprovalPolicy, approvedKeys: readonly string[], options: { readonly ask?: boolean } = {}): ToolCallReview {
  const last = messages.at(-1);
  const unchanged: ToolCallReview = { messages, written: [], approved: [] };
  if (!last || !isAIMessage(last) || !last.tool_calls?.length) return unchanged;
  const approved = new Set(approvedKeys);
  const asked: { call: ToolCall; facts: ScriptToolFacts }[] = [];
  for (const call of last.tool_calls) {
    const facts = scriptToolFacts(tools.find((candidate) => candidate.name === call.name));
    if (needsApproval(call.name, facts, policy, approved)) asked.push({ call, facts });
  }
  if (asked.length === 0) return unchanged;
  if (options.ask === false) {
    const refusals = asked.map(({ call }) => new ToolMessage({ content: `${rejectedCode}: ${notAskedText(call.name)}`, name: call.name, tool_call_id: call.id ?? "", status: "error" }));
    return { messages: [...messages, ...refusals], written: refusals, approved: [] };
  }
  const resume = interrupt<ToolApprovalInterrupt, unknown>(approvalInterrupt(asked, policy));
  const given = decisionsFromResume(resume);
  // One decision per request, or none is trusted: a shorter or longer list cannot be matched to the calls.
  const decisions: ReviewDecision[] = given?.length === asked.length ? given : asked.map(() => ({ type: "unknown" }));
  const edits = new Map<string, Record<string, unknown>>();
  const refusals: ToolMessage[] = [];
  const remembered: string[] = [];
  asked.forEach(({ call, facts }, index) => {
    const outcome = outcomeOf(call, decisions[index] ?? { type: "unknown" }, asked.length);
    if (outcome.refusal !== undefined) {
      refusals.push(new ToolMessage({ content: `${rejectedCode}: ${outcome.refusal}`, name: call.name, tool_call_id: call.id ?? "", status: "error" }));
      return;
    }
    if (outcome.args) edits.set(call.id ?? "", outcome.args);
    remembered.push(approvalKey(call.name, facts));
  });
  const edited = edits.size > 0 ? withEditedArgs(last, edits) : undefined;
  const written = [...(edited ? [edited] : []), ...refusals];
  return { messages: [...messages.slice(0, -1), edited ?? last, ...refusals], written, approved: [...new Set(remembered)] };
}

/** Why a sub-agent's call that needs approval did not run. */
function notAskedText(tool: string): string {
  return `${tool} needs the user's approval before its first call in this thread, and a sub-agent cannot ask for it, so it did not run. Say so in your answer: the lead agent can call ${tool} itself (the user is then asked), and once it is approved in this thread sub-agents may call it too.`;
}

function approvalInterrupt(asked: readonly { call: ToolCall; facts: ScriptToolFacts }[], policy: ToolApprovalPolicy): ToolApprovalInterrupt {
  return {
    action_requests: asked.map(({ call, facts }) => ({ name: call.name, args: call.args, description: approvalDescription(call.name, facts, policy) })),
    review_configs: asked.map(({ call }) => reviewConfigFor(call.name)),
    tool_approvals: asked.map(({ call, facts }) => ({
      tool: call.name,
      skill: facts.skill?.identity ?? null,
      plugin: facts.skill?.plugin ?? null,
      trusted: facts.trusted,
      runtime: facts.runtime,
      network: facts.network,
      env: facts.env,
      policy,
      reason: approvalReason(facts, policy),
    })),
  };
}

function approvalReason(facts: ScriptToolFacts, policy: ToolApprovalPolicy): string {
  return policy === "always" || facts.trusted
    ? "it is the first call of this script tool in this thread, and tools.approval is 'always': every script tool asks once per thread"
    : "it is the first call of this untrusted code in this thread (tools.approval: untrusted), and an administrator has not approved its scripts for every thread";
}

/** What the reviewer reads: whose code it is, how it runs, what it may reach and get, and why they are asked. */
export function approvalDescription(toolName: string, facts: ScriptToolFacts, policy: ToolApprovalPolicy): string {
  const { skill } = facts;
  const from = skill ? `skill ${skill.name} (${skill.identity}${skill.plugin !== undefined ? `, from plugin ${skill.plugin}` : ""})` : "a tool registered on this server";
  const what = facts.trusted ? `${toolName} runs trusted code: a ${facts.runtime} script of ${from}, on this host (confined).` : `${toolName} runs untrusted code: a ${facts.runtime} script of ${from}, which no administrator has marked trusted. It runs in the sandbox.`;
  const network = facts.network.length > 0 ? `Network: it may reach ${facts.network.join(", ")}.` : "Network: none.";
  const env = facts.env.length > 0 ? `Environment variables it gets: ${facts.env.join(", ")}.` : "Environment variables it gets: none.";
  const asked = `Approval is asked because ${approvalReason(facts, policy)}. Approve runs it (and its later calls in this thread), edit runs it with the arguments you give, reject tells the model your message and runs nothing.`;
  return [what, network, env, asked].join(" ");
}

/** One call's fate: run (with edited args or as called), or refused with a reason. */
function outcomeOf(call: ToolCall, decision: ReviewDecision, requests: number): { refusal?: string; args?: Record<string, unknown> } {
  switch (decision.type) {
    case "approve":
      return {};
    case "edit":
      if (decision.name !== undefined && decision.name !== call.name) {
        return { refusal: `the edit names tool '${decision.name}', but approval was asked for '${call.name}'; an edit may change the arguments, not the tool, so nothing ran` };
      }
      return { args: decision.args };
    case "reject":
    case "response": {
      const message = decision.type === "reject" ? decision.message : decision.text.trim();
      return { refusal: `the user rejected this call of ${call.name}, so it did not run.${message ? ` Their message: ${message}` : " They gave no message."}` };
    }
    default:
      return {
        refusal: `the answer to the approval request for ${call.name} was not understood (expected {"decisions": [{"type": "approve" | "edit" | "reject", ...}]} with one decision for each of the ${requests} action request${requests === 1 ? "" : "s"}, in order), so it counts as a rejection and ${call.name} did not run`,
      };
  }
}

/** The AI message with the edited calls' arguments (same id, so it replaces the original), tool_use content blocks included. */
function withEditedArgs(message: AIMessage, edits: ReadonlyMap<string, Record<string, unknown>>): AIMessage {
  const argsOf = (id: unknown) => (typeof id === "string" ? edits.get(id) : undefined);
  const content = Array.isArray(message.content)
    ? message.content.map((part) => {
        const args = part.type === "tool_use" ? argsOf((part as { id?: unknown }).id) : undefined;
        return args ? { ...part, input: args } : part;
      })
    : message.content;
  return new AIMessage({
    content,
    ...(message.id ? { id: message.id } : {}),
    ...(message.name ? { name: message.name } : {}),
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
    ...(message.usage_metadata ? { usage_metadata: message.usage_metadata } : {}),
    tool_calls: (message.tool_calls ?? []).map((call) => ({ ...call, args: argsOf(call.id) ?? call.args })),
    invalid_tool_calls: message.invalid_tool_calls ?? [],
  });
}

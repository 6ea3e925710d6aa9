import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ToolMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import type { Config } from "@thinktank/core";
import type { ThreadArtifact } from "@thinktank/files";
import type { AgentDefinition, AgentsSnapshot, DelegationLimits } from "@thinktank/subagents";
import type { RequestContext } from "../request/request-context.js";
import type { Delegation } from "./delegation-record.js";
import { runSubagent } from "./run-subagent.js";

export interface TaskToolOptions {
  /** The run's agents, as its owner sees them. */
  readonly agents: () => AgentsSnapshot | Promise<AgentsSnapshot>;
  /** What the sub-agents are made from: the lead's context of this run, or (a deeper task tool) the calling sub-agent's. */
  readonly parent: () => RequestContext;
  /** The run's limits (DelegationLimits; a sub-agent's task tool gets `forSubagent()`). */
  readonly limits: DelegationLimits;
  /** The depth of the sub-agents this tool starts: 1 for the lead's task tool. */
  readonly depth: number;
  /** config.subagents (limits, model aliases), config.models, config.tools.approval. */
  readonly config: Pick<Config, "subagents" | "models" | "tools">;
  /** Reads an agent's system prompt (readAgentPrompt). */
  readonly readPrompt: (agent: AgentDefinition) => Promise<string>;
  /** Builds a configured chat model by its `models.providers` name (an agent's mapped model). */
  readonly createModel: (name: string) => Promise<BaseChatModel>;
}

export interface TaskArguments {
  readonly subagent_type: string;
  readonly description: string;
  readonly prompt: string;
}

export const taskToolName = "task";

const schema = {
  type: "object",
  properties: {
    subagent_type: { type: "string", description: "The agent to run: a name or identity from <subagent_system> (or search_skills with kind agents), e.g. general-purpose." },
    description: { type: "string", description: "What the sub-agent does, in 3 to 5 words (shown to the user)." },
    prompt: { type: "string", description: "The whole task for the sub-agent, with every detail it needs: it does not see this conversation, only this text." },
  },
  required: ["subagent_type", "description", "prompt"],
  additionalProperties: false,
} as const;

/**
 * `task({ subagent_type, description, prompt })` (Claude Code's arguments): runs the agent as a
 * sub-agent in a fresh context (run-subagent.ts) and answers with its final text and one line of
 * its token use, or an error tool message (`SUBAGENT_FAILED: ...`, `SUBAGENT_TIMEOUT: ...`) the
 * caller can act on. Every answer carries the delegation record as its artifact, which the graph
 * adds to the state's `delegations`. Several calls of one message run side by side, as many at once
 * as subagents.max_concurrent allows; the others wait for a slot in call order.
 */
export function createTaskTool(options: TaskToolOptions): StructuredToolInterface {
  return tool((args: TaskArguments, config?: RunnableConfig) => runSubagent(args, config ?? {}, options), {
    name: taskToolName,
    description:
      "Hand a self-contained sub-task to a sub-agent: it works in a fresh context of its own (its own instructions and tools, the same workspace) and returns only its final answer, so long research or many file reads cost you just that answer. " +
      "Give it everything it needs in prompt. Several task calls in one message run at the same time. Its answer is for you: tell the user what matters.",
    schema,
  });
}

/**
 * The `task` tool of a sub-agent at the deepest level (depth = subagents.max_depth): not offered
 * to its model, so a call of it (a model that knows the name) is refused with the reason.
 */
export function createRefusedTaskTool(depth: number, maxDepth: number): StructuredToolInterface {
  return tool(
    (_args: unknown, config?: RunnableConfig) =>
      new ToolMessage({
        content: `SUBAGENT_FAILED: a sub-agent at depth ${depth} cannot start sub-agents of its own (subagents.max_depth is ${maxDepth}); do the work yourself with your tools.`,
        tool_call_id: (config as { toolCall?: { id?: string } } | undefined)?.toolCall?.id ?? "",
        name: taskToolName,
        status: "error",
      }),
    { name: taskToolName, description: "Not available at this depth.", schema },
  );
}

/** The tool message a task call answers with: its text, error status when it did not end ok, the delegation (and the files the sub-agent presented) as artifact. */
export function taskAnswer(content: string, delegation: Delegation, artifacts: readonly ThreadArtifact[] = []): ToolMessage {
  return new ToolMessage({
    content,
    tool_call_id: delegation.tool_call_id,
    name: taskToolName,
    status: delegation.status === "ok" ? "success" : "error",
    artifact: { delegation, ...(artifacts.length > 0 ? { artifacts } : {}) },
  });
}

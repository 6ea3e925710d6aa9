import { HumanMessage, isAIMessage, type BaseMessage, type ToolMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { getCurrentTaskInput, isGraphInterrupt, GraphRecursionError } from "@langchain/langgraph";
import { isThinktankError, RunWork, ThinktankError, trackRunWork } from "@thinktank/core";
import type { ThreadArtifact } from "@thinktank/files";
import { agentModelName, findAgent, type AgentDefinition } from "@thinktank/subagents";
import { buildLeadAgentGraph } from "../graph/build-lead-agent-graph.js";
import { hookSubagentOf } from "../hooks/hook-nodes.js";
import { messageText } from "../graph/skill-context-message.js";
import type { RequestContext } from "../request/request-context.js";
import type { Delegation, DelegationStatus } from "./delegation-record.js";
import { subagentSurface } from "./subagent-surface.js";
import { subagentUsage, type SubagentUsage } from "./subagent-usage.js";
import { createRefusedTaskTool, createTaskTool, taskAnswer, type TaskArguments, type TaskToolOptions } from "./task-tool.js";

/** How one delegation ended, before it becomes the tool message. */
interface Outcome {
  readonly status: DelegationStatus;
  readonly text: string;
  readonly agent: string;
  readonly usage?: SubagentUsage;
  readonly startedAt?: number;
  /** The files it presented (present_files). */
  readonly artifacts?: readonly ThreadArtifact[];
}

/**
 * One `task` call: finds the agent (AGENT_NOT_FOUND with near names, disabled agents refused),
 * counts it against subagents.max_per_run, waits for a slot (max_concurrent, in call order), then
 * runs graph lead_agent as a sub-agent (options.subagent) over subagentSurface with the agent's
 * model, on a fresh message list [the prompt], inside the tool's RunnableConfig (so LangGraph
 * streams it as a subgraph of the lead's tools node) and without a checkpointer (its messages never
 * reach the lead's state or the thread's checkpoints). The thread's approvals carry over; a script
 * tool that still needs one answers the sub-agent an error. timeout_seconds aborts it with its
 * tools (their process trees killed, and waited for) and answers SUBAGENT_TIMEOUT; cancelling the
 * run aborts it the same way and the cancel waits for its programs. Any other failure is
 * SUBAGENT_FAILED; none fails the run.
 */
export async function runSubagent(args: TaskArguments, config: RunnableConfig, options: TaskToolOptions): Promise<ToolMessage> {
  const calledAt = performance.now();
  const toolCallId = (config as { toolCall?: { id?: string } }).toolCall?.id ?? "";
  const outcome = await delegate(args, config, options, toolCallId);
  const finishedAt = performance.now();
  const usage = outcome.usage ?? { inputTokens: 0, outputTokens: 0, estimated: false };
  const startedAt = outcome.startedAt ?? finishedAt;
  const delegation: Delegation = {
    tool_call_id: toolCallId,
    agent: outcome.agent,
    description: typeof args.description === "string" ? args.description : "",
    status: outcome.status,
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    tokens_estimated: usage.estimated,
    duration_ms: Math.round(finishedAt - startedAt),
    queued_ms: Math.round(startedAt - calledAt),
    depth: options.depth,
    ...(outcome.status === "ok" ? {} : { error: outcome.text }),
  };
  const seconds = ((finishedAt - startedAt) / 1000).toFixed(1);
  const content =
    outcome.status === "ok"
      ? `${outcome.text}\n\n[sub-agent ${outcome.agent}: ${usage.inputTokens} input and ${usage.outputTokens} output tokens${usage.estimated ? " (counted)" : ""}, ${seconds} s]`
      : outcome.text;
  return taskAnswer(content, delegation, outcome.artifacts);
}

async function delegate(args: TaskArguments, config: RunnableConfig, options: TaskToolOptions, toolCallId: string): Promise<Outcome> {
  const { subagents } = options.config;
  let agent: AgentDefinition;
  try {
    agent = findAgent(await options.agents(), args.subagent_type);
  } catch (error) {
    if (!isThinktankError(error)) throw error;
    return { status: "failed", agent: args.subagent_type, text: `SUBAGENT_FAILED: ${error.code}: ${error.message}` };
  }
  const admission = options.limits.admit();
  if (!admission.ok) return { status: "failed", agent: agent.identity, text: `SUBAGENT_FAILED: ${agent.identity} was not started: ${admission.reason}.` };
  const runSignal = config.signal;
  const release = await options.limits.acquire(runSignal);
  const startedAt = performance.now();
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new ThinktankError("SUBAGENT_TIMEOUT", "the sub-agent's time is up")), subagents.timeout_seconds * 1000);
  const signal = runSignal ? AbortSignal.any([runSignal, timeout.signal]) : timeout.signal;
  // The sub-agent's programs: waited for before its answer, and by the run when it is cancelled.
  const work = new RunWork();
  const running = (async (): Promise<Outcome> => {
    try {
      const { context, systemPrompt } = await subagentContext(agent, options, signal);
      const graph = buildLeadAgentGraph(context, false, {
        toolApproval: options.config.tools.approval,
        subagent: true,
        subagentStop: hookSubagentOf(agent, toolCallId),
        name: "subagent",
        ...(options.depth >= subagents.max_depth ? { unlistedTools: [createRefusedTaskTool(options.depth, subagents.max_depth)] } : {}),
      });
      const { toolCall: _toolCall, runId: _runId, runName: _runName, ...inherited } = config as RunnableConfig & { toolCall?: unknown };
      const result = await graph.invoke({ messages: [new HumanMessage(args.prompt)], approvedTools: approvedToolsOf(config) } as never, {
        ...inherited,
        signal,
        configurable: { ...inherited.configurable, ...work.configurable(), ...subagentNamespace(inherited.configurable, toolCallId) },
        metadata: { ...inherited.metadata, subagent: agent.identity, subagent_depth: options.depth, task_tool_call_id: toolCallId },
        runName: `task:${agent.name}`,
        recursionLimit: stepLimit(agent, config),
      });
      const { messages, artifacts } = result as { messages: BaseMessage[]; artifacts?: ThreadArtifact[] };
      const answer = messages.findLast(isAIMessage);
      const text = answer ? messageText(answer).trim() : "";
      return { status: "ok", agent: agent.identity, startedAt, usage: subagentUsage(systemPrompt, messages), artifacts: artifacts ?? [], text: text === "" ? "(the sub-agent answered nothing)" : text };
    } catch (error) {
      if (runSignal?.aborted) throw error;
      if (timeout.signal.aborted) {
        return { status: "timeout", agent: agent.identity, startedAt, text: `SUBAGENT_TIMEOUT: ${agent.identity} did not finish within subagents.timeout_seconds (${subagents.timeout_seconds} s); it was stopped, with its tools and their programs.` };
      }
      return { status: "failed", agent: agent.identity, startedAt, text: `SUBAGENT_FAILED: ${agent.identity}: ${failureText(error, agent, config)}` };
    } finally {
      clearTimeout(timer);
      await work.settled();
      release();
    }
  })();
  return trackRunWork(config, running);
}

/** The sub-agent's context: its surface from the parent's, its model, and a deeper task tool when depth allows. */
async function subagentContext(agent: AgentDefinition, options: TaskToolOptions, signal: AbortSignal): Promise<{ context: RequestContext; systemPrompt: string }> {
  const parent = options.parent();
  const prompt = await options.readPrompt(agent);
  signal.throwIfAborted();
  const modelName = agentModelName(agent, options.config);
  const model = modelName === undefined || modelName === parent.modelName ? parent.model : await options.createModel(modelName);
  // Its own task tool starts sub-agents from this sub-agent's context (made just below).
  const own: { context?: RequestContext } = {};
  const task =
    options.depth < options.config.subagents.max_depth
      ? createTaskTool({ ...options, depth: options.depth + 1, limits: options.limits.forSubagent(), parent: () => own.context as RequestContext })
      : undefined;
  const surface = subagentSurface(parent, agent, { prompt, ...(task ? { task } : {}) });
  own.context = { ...surface, model, modelName: modelName ?? parent.modelName };
  return { context: own.context, systemPrompt: surface.systemPrompt };
}

/**
 * The sub-agent's namespace: its tools task's (`tools:<task id>`) with the `task` call's id in place
 * of the task id (`tools:call_1`), so each of several sub-agents of one tools step streams under a
 * namespace of its own, the one the LangGraph SDK reads a sub-agent's tool call id from.
 */
function subagentNamespace(configurable: Record<string, unknown> | undefined, toolCallId: string): { checkpoint_ns?: string } {
  const namespace = configurable?.checkpoint_ns;
  if (typeof namespace !== "string" || namespace === "" || toolCallId === "") return {};
  const parts = namespace.split("|");
  return { checkpoint_ns: [...parts.slice(0, -1), `tools:${toolCallId}`].join("|") };
}

/** The thread's approved script tools (the lead's state as the tools node got it), so a sub-agent does not need them approved again. */
function approvedToolsOf(config: RunnableConfig): string[] {
  try {
    const state = getCurrentTaskInput<{ approvedTools?: unknown }>(config);
    return Array.isArray(state?.approvedTools) ? state.approvedTools.filter((key): key is string => typeof key === "string") : [];
  } catch {
    // Outside a graph's tools node (a direct call): no approvals to carry.
    return [];
  }
}

/** An agent file's `maxTurns` (Claude Code's: model turns), as graph steps (a model step and a tools step a turn, and the message's own); else the run's recursion_limit. */
function stepLimit(agent: AgentDefinition, config: RunnableConfig): number {
  const turns = maxTurnsOf(agent);
  return turns === undefined ? (config.recursionLimit ?? 25) : turns * 2 + 2;
}

function maxTurnsOf(agent: AgentDefinition): number | undefined {
  const turns = agent.frontmatter.maxTurns;
  return typeof turns === "number" && Number.isSafeInteger(turns) && turns > 0 ? turns : undefined;
}

function failureText(error: unknown, agent: AgentDefinition, config: RunnableConfig): string {
  if (isThinktankError(error)) return `${error.code}: ${error.message}`;
  if (error instanceof GraphRecursionError) {
    const turns = maxTurnsOf(agent);
    return turns === undefined ? `it did not finish within ${config.recursionLimit ?? 25} steps (the run's recursion_limit)` : `it did not finish within its maxTurns (${turns} model turns)`;
  }
  if (isGraphInterrupt(error)) return "it stopped to ask the user something, which a sub-agent cannot do";
  return error instanceof Error ? error.message : String(error);
}

import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { Config } from "@thinktank/core";
import { countTokens } from "@thinktank/mcp";
import { graphRunExecutor, type RunExecutor, type RunRecord } from "@thinktank/runs";
import type { RunAssistant } from "../assistants/run-assistant.js";
import { prepareRequest, type PrepareRequestOptions } from "../request/prepare-request.js";
import type { RequestProvider } from "../request/request-context.js";
import { threadFolders } from "@thinktank/files";
import { buildLeadAgentGraph, leadAgentGraphId } from "./build-lead-agent-graph.js";

export interface LeadAgentExecutorOptions {
  readonly config: Config;
  readonly checkpointer: BaseCheckpointSaver;
  /** What each run's prompt and tools are made of. */
  readonly providers: readonly RequestProvider[];
  /** Passed to prepareRequest (a custom model factory, the role text). @default {} */
  readonly prepare?: PrepareRequestOptions;
  /** The run's assistant (its recorded version's settings), or undefined for lead_agent's own. @default none */
  readonly assistantFor?: (run: RunRecord) => Promise<RunAssistant | undefined>;
}

/**
 * How a run executes on this server: its RequestContext (model, prompt, tools) from the
 * providers, then graph lead_agent over the checkpointer; the run's metadata names the graph and
 * the model. The run manager (@thinktank/runs) calls it once it is the run's turn.
 */
export function leadAgentExecutor(options: LeadAgentExecutorOptions): RunExecutor {
  const { config, checkpointer, providers } = options;
  return graphRunExecutor({
    // A model that reports no usage (the scripted one, some local servers): its tokens counted as the sub-agents' are.
    countTokens,
    graphFor: async ({ run, startedAt }) => {
      // Inside the run, so a thread id that is no safe folder name fails the run with its code.
      const folders = threadFolders(config, run.thread_id);
      // The assistant's version recorded on the run (a deleted one fails the run with ASSISTANT_NOT_FOUND).
      const assistant = await options.assistantFor?.(run);
      // config.configurable.memory: false (or "off") turns memory off for the run.
      const memory = (run.kwargs.config as { configurable?: { memory?: unknown } } | undefined)?.configurable?.memory;
      const memoryOff = memory === false || memory === "off";
      const context = await prepareRequest(
        { config, threadId: run.thread_id, runId: run.run_id, ownerId: run.owner_id, now: startedAt, folders, ...(assistant ? { assistant } : {}), ...(memoryOff ? { memory: false } : {}) },
        providers,
        options.prepare,
      );
      const named = assistant ? { assistant_id: assistant.assistant_id, assistant_version: assistant.version } : {};
      return { graph: buildLeadAgentGraph(context, checkpointer, { toolApproval: config.tools.approval }), metadata: { graph_id: leadAgentGraphId, model: context.modelName, ...named } };
    },
  });
}

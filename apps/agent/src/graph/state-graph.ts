import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { ThinktankError } from "@thinktank/core";
import { buildLeadAgentGraph, type LeadAgentGraph } from "./build-lead-agent-graph.js";

/**
 * Graph lead_agent with a model that refuses to run, over `checkpointer`: what the thread service
 * reads and updates state through (state, history, state updates, the drawn graph), which needs
 * the graph's shape only.
 */
export function buildStateGraph(checkpointer: BaseCheckpointSaver): LeadAgentGraph {
  const noModel = {
    invoke: () => {
      throw new ThinktankError("INTERNAL", "the state-only graph never calls a model");
    },
  } as unknown as BaseChatModel;
  return buildLeadAgentGraph({ model: noModel, modelName: "none", systemPrompt: "", tools: [] }, checkpointer);
}

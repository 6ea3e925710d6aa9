import { SystemMessage, type AIMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { END, START, StateGraph, type BaseCheckpointSaver } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { ThinktankError } from "@thinktank/core";
import type { RequestContext, ToolSurface } from "../request/request-context.js";
import { LeadAgentState, type LeadAgentStateType } from "./lead-agent-state.js";

/** The graph id the API serves. */
export const leadAgentGraphId = "lead_agent";

/**
 * Graph `lead_agent`: model → (tools → model)* → end. Built per run from the run's
 * RequestContext; the model node re-reads the surface each call so a skill switch (activeSkill)
 * takes effect on the very next model call. The tools node runs the calls of one message in
 * parallel (ToolNode), turns tool errors into error tool messages, and lets interrupts through.
 */
export function buildLeadAgentGraph(context: RequestContext, checkpointer: BaseCheckpointSaver) {
  const surfaceOf = async (state: LeadAgentStateType): Promise<ToolSurface> =>
    state.activeSkill && context.surfaceFor ? context.surfaceFor(state.activeSkill) : context;

  const callModel = async (state: LeadAgentStateType, config: RunnableConfig) => {
    const surface = await surfaceOf(state);
    let model: { invoke: typeof context.model.invoke } = context.model;
    if (surface.tools.length > 0) {
      if (!context.model.bindTools) throw new ThinktankError("MODEL_NOT_CONFIGURED", `the configured chat model (${context.modelName}) cannot call tools`);
      model = context.model.bindTools([...surface.tools]);
    }
    const response = await model.invoke([new SystemMessage(surface.systemPrompt), ...state.messages], config);
    return { messages: [response] };
  };

  const callTools = async (state: LeadAgentStateType, config: RunnableConfig) => {
    const surface = await surfaceOf(state);
    return new ToolNode([...surface.tools]).invoke(state, config);
  };

  const route = (state: LeadAgentStateType): "tools" | typeof END => {
    const last = state.messages.at(-1) as AIMessage | undefined;
    return last?.tool_calls?.length ? "tools" : END;
  };

  return new StateGraph(LeadAgentState)
    .addNode("model", callModel)
    .addNode("tools", callTools)
    .addEdge(START, "model")
    .addConditionalEdges("model", route, ["tools", END])
    .addEdge("tools", "model")
    .compile({ checkpointer, name: leadAgentGraphId });
}

export type LeadAgentGraph = ReturnType<typeof buildLeadAgentGraph>;

import { Annotation, MessagesAnnotation } from "@langchain/langgraph";

/**
 * The state of graph `lead_agent`: the conversation, and the skill whose specialist context is
 * active (set by view_skill, cleared when the model leaves the skill; null in the router context).
 */
export const LeadAgentState = Annotation.Root({
  ...MessagesAnnotation.spec,
  activeSkill: Annotation<string | null>({ reducer: (_current, next) => next, default: () => null }),
});

export type LeadAgentStateType = typeof LeadAgentState.State;
export type LeadAgentUpdate = typeof LeadAgentState.Update;

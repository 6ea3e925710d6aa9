import { Annotation, MessagesAnnotation } from "@langchain/langgraph";

/**
 * The state of graph `lead_agent`: the conversation, the skill whose specialist context is
 * active (set by view_skill, cleared when the model leaves the skill; null in the router context),
 * and the script tools approved in this thread (`<skill identity>/<tool>`, `registered/<tool>`;
 * added by the tools node after an approval, never removed: tool-approval.ts).
 */
export const LeadAgentState = Annotation.Root({
  ...MessagesAnnotation.spec,
  activeSkill: Annotation<string | null>({ reducer: (_current, next) => next, default: () => null }),
  approvedTools: Annotation<string[], readonly string[]>({ reducer: (current, next) => [...new Set([...current, ...(Array.isArray(next) ? next.filter((key) => typeof key === "string") : [])])], default: () => [] }),
});

export type LeadAgentStateType = typeof LeadAgentState.State;
export type LeadAgentUpdate = typeof LeadAgentState.Update;

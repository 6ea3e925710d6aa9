import { Annotation, MessagesAnnotation } from "@langchain/langgraph";
import { mergeArtifacts, type ThreadArtifact } from "@thinktank/files";
import { mergeDelegations, type Delegation } from "../subagents/delegation-record.js";

/**
 * The state of graph `lead_agent`: the conversation, the skill whose specialist context is
 * active (set by view_skill, cleared when the model leaves the skill; null in the router context),
 * the script tools approved in this thread (`<skill identity>/<tool>`, `registered/<tool>`;
 * added by the tools node after an approval, never removed: tool-approval.ts), the files the model
 * presented with present_files (`artifacts`: merged by path, newest last; what a frontend reads),
 * the seq of the last upload a user message was told about (`uploadsSeen`; the upload note), and
 * each `task` call's delegation (`delegations`: agent, description, status, tokens, duration;
 * src/subagents).
 */
export const LeadAgentState = Annotation.Root({
  ...MessagesAnnotation.spec,
  activeSkill: Annotation<string | null>({ reducer: (_current, next) => next, default: () => null }),
  approvedTools: Annotation<string[], readonly string[]>({ reducer: (current, next) => [...new Set([...current, ...(Array.isArray(next) ? next.filter((key) => typeof key === "string") : [])])], default: () => [] }),
  artifacts: Annotation<ThreadArtifact[], readonly ThreadArtifact[]>({ reducer: mergeArtifacts, default: () => [] }),
  uploadsSeen: Annotation<number>({ reducer: (current, next) => (Number.isSafeInteger(next) && next >= 0 ? next : current), default: () => 0 }),
  delegations: Annotation<Delegation[], readonly Delegation[]>({ reducer: mergeDelegations, default: () => [] }),
});

export type LeadAgentStateType = typeof LeadAgentState.State;
export type LeadAgentUpdate = typeof LeadAgentState.Update;

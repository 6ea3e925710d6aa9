import { escapeXml } from "../escape-xml.js";
import { subagentTypes, summarizeAgentDescription, type SearchableAgent } from "../search/agent-search-index.js";
import { taskSentence } from "./render-agent-system.js";

export interface RenderAgentIndexOptions {
  /** Whether each new user message carries `<relevant_skills>` (skills.relevant_limit > 0). @default true */
  readonly relevant?: boolean;
}

/**
 * The compact `<subagent_system>`: how to call `task`, how many agents are installed and how to
 * find them (`<relevant_skills>`, `search_skills` with kind "agents"), and the built-in agents by
 * name (a handful, always there). Names no other agent, so it stays the same size for 10 or 1,000
 * agents and depends on nothing but the list: the system prompt stays byte-identical for a
 * thread. "" without agents.
 */
export function renderAgentIndex(agents: readonly SearchableAgent[], options: RenderAgentIndexOptions = {}): string {
  if (agents.length === 0) return "";
  const relevant = options.relevant ?? true;
  const types = subagentTypes(agents);
  const builtins = agents.filter((agent) => agent.identity.startsWith("builtin:"));
  return [
    "<subagent_system>",
    `${taskSentence}. ${agents.length} sub-agent${agents.length === 1 ? " is" : "s are"} installed, too many to list here, so find them:`,
    ...(relevant ? ["- A user message may end with <relevant_skills> naming the sub-agents that best match it."] : []),
    `- search_skills(query, kind: "agents") finds any of them by task or name; pass the subagent_type it gives.`,
    ...builtins.map((agent) => `- Always there: ${escapeXml(types.get(agent.identity) ?? agent.identity)}: ${escapeXml(summarizeAgentDescription(agent.description, 120))}`),
    "</subagent_system>",
  ].join("\n");
}

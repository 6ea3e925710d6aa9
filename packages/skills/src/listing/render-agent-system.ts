import { escapeXml } from "../escape-xml.js";
import { subagentTypes, summarizeAgentDescription, type SearchableAgent } from "../search/agent-search-index.js";

/** How the lead calls a sub-agent: one sentence shared by the full and the compact section. */
export const taskSentence = "task(subagent_type, description, prompt) hands a self-contained sub-task to a sub-agent, which works in a fresh context of its own and returns only its final answer";

export interface RenderAgentSystemOptions {
  /** The longest description line of an agent. @default 200 */
  readonly descriptionChars?: number;
}

/**
 * The full `<subagent_system>`: how to call `task`, then every agent the lead may call, by the
 * `subagent_type` to pass (the bare name when unique among them, else the identity) and its
 * description in one line (examples left out). "" without agents. Identical input, identical bytes.
 */
export function renderAgentSystem(agents: readonly SearchableAgent[], options: RenderAgentSystemOptions = {}): string {
  if (agents.length === 0) return "";
  const types = subagentTypes(agents);
  const chars = options.descriptionChars ?? 200;
  return [
    "<subagent_system>",
    `${taskSentence}. Pass one of these as subagent_type:`,
    ...agents.map((agent) => renderAgentLine(types.get(agent.identity) ?? agent.identity, agent, chars)),
    "</subagent_system>",
  ].join("\n");
}

/** One agent's line of the full `<subagent_system>` (what the agent costs in the full listing). */
export function renderAgentLine(subagentType: string, agent: Pick<SearchableAgent, "description">, descriptionChars = 200): string {
  return `- ${escapeXml(subagentType)}: ${escapeXml(summarizeAgentDescription(agent.description, descriptionChars))}`;
}

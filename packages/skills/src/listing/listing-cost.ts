import { summarizeDescription } from "@thinktank/search";
import { escapeXml } from "../escape-xml.js";
import { subagentTypes, type SearchableAgent } from "../search/agent-search-index.js";
import type { Skill } from "../skill-types.js";
import { renderSkillEntry } from "../render-skill-system.js";
import { renderAgentLine } from "./render-agent-system.js";
import { renderRelevantSkillLine } from "./render-relevant-skills.js";

/** What a set of skills, slash commands and sub-agents (one skill, or a plugin's) adds to what the model is sent. */
export interface ListingCostEntries {
  /** Skills the model may use (enabled, not `disable-model-invocation`; others cost nothing and are skipped). */
  readonly skills: readonly Pick<Skill, "name" | "description" | "containerPath" | "disableModelInvocation">[];
  /** The full `<slash_commands>` lines of its commands, as the caller renders them (packages/plugins' slashCommandLines). @default [] */
  readonly commandLines?: readonly string[];
  /** Its sub-agents. @default [] */
  readonly agents?: readonly SearchableAgent[];
  /**
   * The group its skills and commands are counted under in the compact listing (a plugin's name);
   * without one they join an existing group (public, custom) and add no text. @default none
   */
  readonly group?: string;
}

/** Tokens (o200k as the agent counts them) in each listing mode: GET /api/skills/:name/content and the plugin answers. */
export interface ListingCost {
  /** skills.listing full: its entries in `<available_skills>`, `<slash_commands>` and `<subagent_system>`, in every request. */
  readonly full: { readonly tokens: number; readonly skills: number; readonly commands: number; readonly agents: number };
  /**
   * skills.listing compact: `tokens` in every request (its group's count in the compact sections;
   * 0 without a group), and `offered_tokens` on the user messages its skills are offered with
   * (`<relevant_skills>`, each skill's line, summed: a message is offered the few that match it).
   */
  readonly compact: { readonly tokens: number; readonly offered_tokens: number };
}

export interface ListingCostOptions {
  /** The token counter (o200k: @thinktank/mcp's countTokens, as the agent's listing counts). */
  readonly countTokens: (text: string) => number;
  /** How long an offered skill's description is (config: the search's description length). @default 160 */
  readonly descriptionChars?: number;
}

/**
 * What entries cost in each listing mode, computed from the same renderers the listing uses, so
 * the projection matches what the agent would send: the full listing names each skill, command
 * and agent; the compact one names none in the system prompt (a group count) and offers the best
 * matches with each message. Agents' `subagent_type` is taken among these agents alone.
 */
export function listingCost(entries: ListingCostEntries, options: ListingCostOptions): ListingCost {
  const count = (lines: readonly string[]): number => lines.reduce((sum, line) => sum + options.countTokens(`${line}\n`), 0);
  const skills = entries.skills.filter((skill) => !skill.disableModelInvocation);
  const agents = entries.agents ?? [];
  const commandLines = entries.commandLines ?? [];
  const types = subagentTypes(agents);
  const full = {
    skills: count(skills.map(renderSkillEntry)),
    commands: count(commandLines),
    agents: count(agents.map((agent) => renderAgentLine(types.get(agent.identity) ?? agent.identity, agent))),
  };
  const chars = options.descriptionChars ?? 160;
  const offered = count(skills.map((skill) => renderRelevantSkillLine({ name: skill.name, location: skill.containerPath, description: summarizeDescription(skill.description, chars) })));
  // The compact sections count skills and commands per group ("sales 4, "); agents are counted in total only.
  const groups = entries.group === undefined ? [] : [skills.length, commandLines.length].filter((n) => n > 0).map((n) => `${escapeXml(entries.group!)} ${n}, `);
  return {
    full: { tokens: full.skills + full.commands + full.agents, ...full },
    compact: { tokens: groups.reduce((sum, text) => sum + options.countTokens(text), 0), offered_tokens: offered },
  };
}

/** JSON Schema of ListingCost, for the routes' answers. */
export const listingCostJsonSchema = {
  type: "object",
  required: ["full", "compact"],
  description: "Tokens (o200k) in each listing mode (skills.listing): full names every entry in every request; compact costs its group count in every request and each skill's line on the messages it is offered with",
  properties: {
    full: {
      type: "object",
      required: ["tokens", "skills", "commands", "agents"],
      properties: { tokens: { type: "integer" }, skills: { type: "integer" }, commands: { type: "integer" }, agents: { type: "integer" } },
    },
    compact: { type: "object", required: ["tokens", "offered_tokens"], properties: { tokens: { type: "integer" }, offered_tokens: { type: "integer" } } },
  },
} as const;

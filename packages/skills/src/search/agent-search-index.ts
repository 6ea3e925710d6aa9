import { EntryIndex, type EntryFields } from "./entry-index.js";
import type { SkillSearchIndexOptions } from "./skill-search-index.js";

/** A sub-agent as the listing sees it (packages/subagents' `AgentDefinition` fits): enabled ones only. */
export interface SearchableAgent {
  /** `builtin:general-purpose`, `plugin:<plugin>:<name>`, `custom:<name>`, `user:<name>`. */
  readonly identity: string;
  readonly name: string;
  /** When to use it, as written (Claude Code agents often add `<example>` blocks). */
  readonly description: string;
}

/** One sub-agent a search found. */
export interface AgentSearchHit {
  readonly identity: string;
  /** What `task` takes as `subagent_type`: the bare name when no other listed agent has it, else the identity. */
  readonly subagentType: string;
  /** The description without its examples, cut on a sentence or a word to `descriptionChars`. */
  readonly description: string;
  readonly score: number;
}

/**
 * Ranked search over the sub-agents the lead may call, on the engine, fields and weights of skill
 * search (`EntryIndex`): name, the description without its examples, the plugin, and the examples
 * as the low-weight body field (they say in users' words when the agent fits). A query that is
 * an agent's name or identity puts it first. Build one per agent list; it indexes on first search.
 */
export class AgentSearchIndex {
  readonly #index: EntryIndex<SearchableAgent>;
  readonly #types: ReadonlyMap<string, string>;
  readonly #descriptionChars: number;

  constructor(agents: readonly SearchableAgent[], options: SkillSearchIndexOptions = {}) {
    this.#index = new EntryIndex(agents, agentFields, (agent) => [agent.name, agent.identity], options);
    this.#types = subagentTypes(agents);
    this.#descriptionChars = options.descriptionChars ?? 160;
  }

  get size(): number {
    return this.#index.size;
  }

  /** What `task` takes as this agent's subagent_type (see `subagentTypes`). */
  subagentType(agent: Pick<SearchableAgent, "identity">): string {
    return this.#types.get(agent.identity) ?? agent.identity;
  }

  /** The agents that best match a task, best first. An empty query or a bad limit is VALIDATION_FAILED. */
  search(query: string, options: { readonly limit?: number } = {}): AgentSearchHit[] {
    return this.#index.search(query, options.limit).map(({ entry, score }) => ({
      identity: entry.identity,
      subagentType: this.#types.get(entry.identity) ?? entry.identity,
      description: summarizeAgentDescription(entry.description, this.#descriptionChars),
      score,
    }));
  }
}

/** Each agent's `subagent_type`: its bare name when no other agent of the list has that name, else its identity. */
export function subagentTypes(agents: readonly SearchableAgent[]): Map<string, string> {
  const counts = new Map<string, number>();
  for (const agent of agents) counts.set(agent.name, (counts.get(agent.name) ?? 0) + 1);
  return new Map(agents.map((agent) => [agent.identity, counts.get(agent.name) === 1 ? agent.name : agent.identity]));
}

/** `<example>` blocks (Claude Code's way of showing when an agent fits) and a `<commentary>` outside them. */
const exampleBlocks = /<(example|commentary)>[\s\S]*?(?:<\/\1>|$)/gi;

/**
 * An agent's description for a listing line: its examples left out, whitespace collapsed, at most
 * `maxChars` characters, cut after the last sentence that fits (when that keeps more than half)
 * or on a word with "…".
 */
export function summarizeAgentDescription(description: string, maxChars: number): string {
  const text = description.replace(exampleBlocks, " ").replace(/\s+/g, " ").trim();
  if (text.length <= maxChars) return text;
  const cut = text.slice(0, maxChars);
  const sentence = Math.max(cut.lastIndexOf(". "), cut.lastIndexOf("! "), cut.lastIndexOf("? "), cut.endsWith(".") ? cut.length - 1 : -1);
  if (sentence > maxChars / 2) return cut.slice(0, sentence + 1);
  const space = cut.slice(0, maxChars - 1).lastIndexOf(" ");
  return `${(space > maxChars / 2 ? cut.slice(0, space) : cut.slice(0, maxChars - 1)).trimEnd()}…`;
}

/** What agent search reads of an agent (also the listing's joint ranking of skills, commands and agents). */
export function agentFields(agent: SearchableAgent): EntryFields {
  const examples = [...agent.description.matchAll(exampleBlocks)].map((match) => match[0].replace(/<\/?[a-z]+>/gi, " "));
  const plugin = /^plugin:([^:]+):/.exec(agent.identity)?.[1] ?? "";
  return { name: agent.name, description: agent.description.replace(exampleBlocks, " ").trim(), group: plugin, outline: "", body: examples.join("\n") };
}

import { ThinktankError } from "@thinktank/core";
import { summarizeDescription, type SemanticStage } from "@thinktank/search";
import { agentFields, AgentSearchIndex, summarizeAgentDescription, type AgentSearchHit, type SearchableAgent } from "../search/agent-search-index.js";
import { commandFields, CommandSearchIndex, type CommandSearchHit, type SearchableCommand } from "../search/command-search-index.js";
import { EntryIndex } from "../search/entry-index.js";
import { skillFields, type SkillSearchHit } from "../search/skill-search-index.js";
import type { Skill } from "../skill-types.js";
import type { SkillsSnapshot } from "../skills-snapshotter.js";
import { renderCommandIndex } from "./render-command-index.js";
import { renderAgentIndex } from "./render-agent-index.js";
import { renderAgentSystem } from "./render-agent-system.js";
import type { RelevantSkills } from "./render-relevant-skills.js";
import { renderSkillIndex } from "./render-skill-index.js";

/** config.skills.listing */
export type SkillListingSetting = "full" | "compact" | "auto";
/** What search_skills searches: skills, slash commands, sub-agents, or all of them. */
export type SkillSearchKind = "skills" | "commands" | "agents" | "all";

export interface SkillListingOptions {
  /** config.skills.listing */
  readonly listing: SkillListingSetting;
  /** config.skills.auto_threshold_tokens: auto lists everything while the full listing costs at most this. */
  readonly autoThresholdTokens: number;
  /** config.skills.relevant_limit: skills offered with each new user message (0: none). */
  readonly relevantLimit: number;
  /**
   * config.skills.relevant_named_limit: skills named (name and folder, no description) with each new user message after the
   * `relevantLimit` described ones: the next best matches, a fifth of a description's cost each.
   * 0: none. @default 25
   */
  readonly relevantNamedLimit?: number;
  /** Slash commands offered with each new user message. @default min(3, relevantLimit) */
  readonly relevantCommandLimit?: number;
  /**
   * The sub-agents the lead may call (enabled ones; the `task` tool runs them), listed in
   * `<subagent_system>` (full) or found by search and offered with each message (compact).
   * Absent or empty (subagents.enabled false): no agents section, none offered or found. @default []
   */
  readonly agents?: readonly SearchableAgent[];
  /** Sub-agents offered with each new user message, with their descriptions. @default min(3, relevantLimit) */
  readonly relevantAgentLimit?: number;
  /**
   * Sub-agents named (subagent_type alone) after the described ones: agents that rank among the
   * best `relevantLimit + relevantNamedLimit` of skills, commands and agents ranked together but
   * not among the best `relevantLimit`. 0: none. @default 5
   */
  readonly relevantNamedAgentLimit?: number;
  /** Virtual root the model sees. @default "/mnt/skills" */
  readonly containerPath?: string;
  /** The token counter auto compares with the threshold (the agent passes o200k's). */
  readonly countTokens: (text: string) => number;
  /**
   * config.search.embeddings' semantic stage: `relevantToBlended` and `searchBlended` rank skills
   * by keywords and meaning (SkillSearchIndex.searchWithMeaning), waiting at most `timeoutMs`
   * (@default 3000) before they keep the keyword ranking. Absent: keywords alone.
   */
  readonly semantic?: { readonly stage: SemanticStage; readonly timeoutMs?: number };
}

/** An entry of the joint ranking that decides which commands and sub-agents a message is offered. */
type Offer =
  | { readonly skill: Skill; readonly command?: undefined; readonly agent?: undefined }
  | { readonly command: SearchableCommand; readonly skill?: undefined; readonly agent?: undefined }
  | { readonly agent: SearchableAgent; readonly skill?: undefined; readonly command?: undefined };

/** What search_skills answers: the skills, commands and/or sub-agents found, best first. */
export interface SkillListingSearch {
  readonly skills?: readonly SkillSearchHit[];
  readonly commands?: readonly CommandSearchHit[];
  readonly agents?: readonly AgentSearchHit[];
}

/**
 * How the skills and slash commands of one snapshot reach the model, per `skills.listing`:
 * - full: `<skill_system>` with every skill and `<slash_commands>` with every command;
 * - compact: a stable index of each (counts by group, how to find them; see renderSkillIndex and
 *   renderCommandIndex), search_skills over all of them, and the few that best match each new
 *   user message (`relevantTo`), attached to that message after the stable prefix;
 * - auto: full while the full listing (all three sections) costs at most the threshold, compact above.
 * Sub-agents (`options.agents`) follow the same mode: `<subagent_system>` with every agent, or a
 * stable index, `search_skills` kind "agents" and the agents that best match each message.
 * Built once per snapshot pair and shared; everything is computed on first use.
 */
export class SkillListing {
  readonly #snapshot: Pick<SkillsSnapshot, "skills" | "promptSection" | "search">;
  readonly #commands: readonly SearchableCommand[];
  readonly #fullCommandsSection: () => string;
  readonly #options: SkillListingOptions;
  #choice: { mode: "full" | "compact"; reason: string; fullTokens: number | undefined } | undefined;
  #sections: { skills: string; commands: string; agents: string } | undefined;
  #agents: AgentSearchIndex | undefined;
  #allCommands: CommandSearchIndex | undefined;
  #unlistedCommands: CommandSearchIndex | undefined;
  #offers: EntryIndex<Offer> | undefined;

  /**
   * @param commands every slash command (plugin commands, user-invocable skills)
   * @param fullCommandsSection renders the full `<slash_commands>` of these commands (called only when needed)
   */
  constructor(snapshot: Pick<SkillsSnapshot, "skills" | "promptSection" | "search">, commands: readonly SearchableCommand[], fullCommandsSection: () => string, options: SkillListingOptions) {
    this.#snapshot = snapshot;
    this.#commands = commands;
    this.#fullCommandsSection = fullCommandsSection;
    this.#options = options;
  }

  /** The listing in effect (auto resolved). */
  get mode(): "full" | "compact" {
    return this.#choose().mode;
  }

  /** Why: the setting, or auto's token comparison. */
  get reason(): string {
    return this.#choose().reason;
  }

  /** The `<skill_system>` section of the system prompt in this mode ("" without skills). */
  get skillsSection(): string {
    return this.#render().skills;
  }

  /** The `<slash_commands>` section in this mode ("" without commands). */
  get commandsSection(): string {
    return this.#render().commands;
  }

  /** The `<subagent_system>` section in this mode ("" without agents). */
  get agentsSection(): string {
    return this.#render().agents;
  }

  /** Whether search_skills is offered: compact mode with anything to find. */
  get searchable(): boolean {
    return this.mode === "compact" && (this.#snapshot.search.size > 0 || this.#commands.length > 0 || this.#agentList().length > 0);
  }

  /**
   * The skills (and slash commands the skill list does not show) that best match a user message:
   * undefined in full mode or with relevant_limit 0 (nothing is attached), empty lists when
   * nothing matches (a greeting); `agents` only when some agent is offered. Deterministic for one
   * snapshot.
   */
  relevantTo(message: string): RelevantSkills | undefined {
    if (this.mode !== "compact" || this.#options.relevantLimit < 1) return undefined;
    if (message.trim() === "") return { skills: [], commands: [] };
    return this.#offer(message, this.#snapshot.search.size > 0 ? this.#snapshot.search.search(message, { limit: this.#offerDepth() }) : []);
  }

  /** `relevantTo` with the skills ranked by keywords and meaning when the listing has a semantic stage. */
  async relevantToBlended(message: string): Promise<RelevantSkills | undefined> {
    const semantic = this.#options.semantic;
    if (!semantic || this.#snapshot.search.size === 0 || message.trim() === "" || this.mode !== "compact" || this.#options.relevantLimit < 1) return this.relevantTo(message);
    return this.#offer(message, await this.#snapshot.search.searchWithMeaning(message, semantic.stage, { limit: this.#offerDepth(), ...(semantic.timeoutMs === undefined ? {} : { timeoutMs: semantic.timeoutMs }) }));
  }

  /** Skills offered with a message: the described ones and the named ones after them. */
  #offerDepth(): number {
    return this.#options.relevantLimit + (this.#options.relevantNamedLimit ?? 25);
  }

  #offer(message: string, found: readonly SkillSearchHit[]): RelevantSkills {
    const limit = this.#options.relevantLimit;
    const commandLimit = this.#options.relevantCommandLimit ?? Math.min(3, limit);
    const agentLimit = this.#agentList().length > 0 ? (this.#options.relevantAgentLimit ?? Math.min(3, limit)) : 0;
    const named = this.#options.relevantNamedLimit ?? 25;
    const skills = found.slice(0, limit);
    const more = found.slice(limit);
    // A command or an agent is offered when it ranks among the best `limit` of skills, commands
    // and agents ranked together: with a few dozen of them, a search of commands (or agents) alone
    // always finds something (a word in common), which would attach unrelated ones to most messages.
    // Agents ranked further down (as skills are named after the described ones) are named alone.
    const namedAgentLimit = agentLimit > 0 ? (this.#options.relevantNamedAgentLimit ?? 5) : 0;
    const ranked = commandLimit > 0 || agentLimit > 0 ? this.#offerIndex().search(message, limit + (namedAgentLimit > 0 ? Math.min(named, namedAgentDepth) : 0)) : [];
    const joint = ranked.slice(0, limit);
    const commands = joint.flatMap(({ entry }) => (entry.command ? [entry.command] : [])).slice(0, commandLimit);
    const agents = joint.flatMap(({ entry }) => (entry.agent ? [entry.agent] : [])).slice(0, agentLimit);
    const described = new Set(agents);
    const moreAgents = ranked.flatMap(({ entry }) => (entry.agent && !described.has(entry.agent) ? [entry.agent] : [])).slice(0, namedAgentLimit);
    const types = agents.length + moreAgents.length > 0 ? this.#agentIndex() : undefined;
    return {
      skills: skills.map(({ identity, name, description, location }) => ({ identity, name, description, location })),
      ...(more.length > 0 ? { moreSkills: more.map(({ identity, name, location }) => ({ identity, name, location })) } : {}),
      commands: commands.map((command) => ({
        kind: command.kind,
        invocation: command.invocation,
        description: summarizeDescription(command.description, 160),
        ...(command.argumentHint ? { argumentHint: command.argumentHint } : {}),
        ...(command.identity ? { identity: command.identity } : {}),
      })),
      // Only when some are offered: a message offered no agent stores what it stored before agents existed.
      ...(agents.length > 0 ? { agents: agents.map((agent) => ({ identity: agent.identity, subagentType: types?.subagentType(agent) ?? agent.identity, description: summarizeAgentDescription(agent.description, 160) })) } : {}),
      ...(moreAgents.length > 0 ? { moreAgents: moreAgents.map((agent) => ({ identity: agent.identity, subagentType: types?.subagentType(agent) ?? agent.identity })) } : {}),
    };
  }

  /**
   * search_skills: `skills` searches the skills the model may use; `commands` every slash command
   * (user-invocable skills included); `agents` the sub-agents; `all` all three, the commands part
   * without the skills already in the skill list (and no agents part without agents). An empty
   * query or a bad limit is VALIDATION_FAILED.
   */
  search(query: string, options: { readonly limit?: number; readonly kind?: SkillSearchKind } = {}): SkillListingSearch {
    return this.#searchWith(query, options, undefined);
  }

  /** `search_skills`' answer, with `skills` as the skills part when given (searchBlended's). */
  #searchWith(query: string, options: { readonly limit?: number; readonly kind?: SkillSearchKind }, skills: readonly SkillSearchHit[] | undefined): SkillListingSearch {
    const kind = options.kind ?? "all";
    if (kind !== "skills" && kind !== "commands" && kind !== "agents" && kind !== "all") throw new ThinktankError("VALIDATION_FAILED", `kind must be skills, commands, agents or all; got ${JSON.stringify(kind)}`);
    const limit = options.limit === undefined ? {} : { limit: options.limit };
    const agents = kind === "agents" || (kind === "all" && this.#agentList().length > 0);
    return {
      ...(kind === "skills" || kind === "all" ? { skills: skills ?? this.#snapshot.search.search(query, limit) } : {}),
      ...(kind === "commands" ? { commands: this.#all().search(query, limit) } : kind === "all" ? { commands: this.#unlisted().search(query, limit) } : {}),
      ...(agents ? { agents: this.#agentIndex().search(query, limit) } : {}),
    };
  }

  /** `search` with the skills ranked by keywords and meaning when the listing has a semantic stage. */
  async searchBlended(query: string, options: { readonly limit?: number; readonly kind?: SkillSearchKind } = {}): Promise<SkillListingSearch> {
    const semantic = this.#options.semantic;
    const kind = options.kind ?? "all";
    if (!semantic || (kind !== "skills" && kind !== "all")) return this.search(query, options);
    const skills = await this.#snapshot.search.searchWithMeaning(query, semantic.stage, { ...(options.limit === undefined ? {} : { limit: options.limit }), ...(semantic.timeoutMs === undefined ? {} : { timeoutMs: semantic.timeoutMs }) });
    return this.#searchWith(query, options, skills);
  }

  #choose(): { mode: "full" | "compact"; reason: string; fullTokens: number | undefined } {
    if (this.#choice) return this.#choice;
    const { listing, autoThresholdTokens } = this.#options;
    if (listing !== "auto") return (this.#choice = { mode: listing, reason: `skills.listing is ${listing}`, fullTokens: undefined });
    const agents = this.#agentList();
    const full = [this.#snapshot.promptSection, this.#fullCommandsSection(), ...(agents.length > 0 ? [renderAgentSystem(agents)] : [])].join("\n\n");
    const weighed = tokensUpTo(full, autoThresholdTokens, this.#options.countTokens);
    const mode = weighed.over ? "compact" : "full";
    const count = agents.length > 0 ? `${this.#snapshot.search.size} skills, ${this.#commands.length} slash commands and ${agents.length} sub-agent${agents.length === 1 ? "" : "s"}` : `${this.#snapshot.search.size} skills and ${this.#commands.length} slash commands`;
    const cost = weighed.complete ? `costs ${weighed.tokens} tokens` : `costs more than ${weighed.tokens} tokens`;
    return (this.#choice = { mode, reason: `auto: listing ${count} ${cost}, ${mode === "compact" ? "more" : "not more"} than skills.auto_threshold_tokens (${autoThresholdTokens})`, fullTokens: weighed.complete ? weighed.tokens : undefined });
  }

  #render(): { skills: string; commands: string; agents: string } {
    if (this.#sections) return this.#sections;
    if (this.mode === "full") return (this.#sections = { skills: this.#snapshot.promptSection, commands: this.#fullCommandsSection(), agents: renderAgentSystem(this.#agentList()) });
    const relevant = this.#options.relevantLimit > 0;
    const containerPath = this.#options.containerPath ?? "/mnt/skills";
    return (this.#sections = {
      skills: renderSkillIndex(this.#snapshot.skills, { containerPath, relevant }),
      commands: renderCommandIndex(this.#commands, { relevant }),
      agents: renderAgentIndex(this.#agentList(), { relevant }),
    });
  }

  #agentList(): readonly SearchableAgent[] {
    return this.#options.agents ?? [];
  }

  #agentIndex(): AgentSearchIndex {
    return (this.#agents ??= new AgentSearchIndex(this.#agentList()));
  }

  #all(): CommandSearchIndex {
    return (this.#allCommands ??= new CommandSearchIndex(this.#commands));
  }

  /** The commands the model does not otherwise see: plugin commands, and skills only the user may run. */
  #unlistedEntries(): SearchableCommand[] {
    const listed = new Set(this.#searchableSkills().map((skill) => skill.identity));
    return this.#commands.filter((command) => command.kind !== "skill" || command.identity === undefined || !listed.has(command.identity));
  }

  #unlisted(): CommandSearchIndex {
    return (this.#unlistedCommands ??= new CommandSearchIndex(this.#unlistedEntries()));
  }

  /** Skills the model may use, the unlisted commands and the agents, ranked together on the same fields and weights. */
  #offerIndex(): EntryIndex<Offer> {
    if (this.#offers) return this.#offers;
    const entries: Offer[] = [...this.#searchableSkills().map((skill) => ({ skill })), ...this.#unlistedEntries().map((command) => ({ command })), ...this.#agentList().map((agent) => ({ agent }))];
    return (this.#offers = new EntryIndex(
      entries,
      (entry) => (entry.skill ? skillFields(entry.skill) : entry.command ? commandFields(entry.command) : agentFields(entry.agent)),
      (entry) => (entry.skill ? [entry.skill.name, entry.skill.identity] : entry.command ? [entry.command.name, entry.command.invocation, entry.command.invocation.slice(1)] : [entry.agent.name, entry.agent.identity]),
    ));
  }

  #searchableSkills(): Skill[] {
    return this.#snapshot.skills.filter((skill) => skill.enabled && !skill.disableModelInvocation);
  }
}


/**
 * Agents are named when they rank among the best `relevantLimit` + this many of skills, commands
 * and agents together (at most relevantNamedLimit): with more skills named (relevant_named_limit
 * up to 40) agents ranked 30th or 45th would otherwise be named for most messages.
 */
const namedAgentDepth = 10;

/**
 * The tokens of `text` while they stay within `limit`: counted a piece at a time, stopping as soon
 * as the count passes the limit (the full listing of 1,000 skills is ~120,000 tokens, and only the
 * first ~limit matter). Pieces end at a line break followed by a character that starts a pre-token
 * of its own (not whitespace, not '/'), so the pieces' counts add up to the whole's: before each
 * `<skill>` entry, so one skill's entry is the same piece in every user's listing (a caching
 * `countTokens` counts it once), and otherwise every few kilobytes.
 */
function tokensUpTo(text: string, limit: number, countTokens: (text: string) => number): { tokens: number; over: boolean; complete: boolean } {
  let tokens = 0;
  let start = 0;
  while (start < text.length) {
    let end = text.length;
    for (let at = text.indexOf("\n", start); at !== -1; at = text.indexOf("\n", at + 1)) {
      if (/^[^\s/]/.test(text.charAt(at + 1)) && (at >= start + 4096 || text.startsWith("<skill>", at + 1))) {
        end = at + 1;
        break;
      }
    }
    tokens += countTokens(text.slice(start, end));
    start = end;
    if (tokens > limit) return { tokens, over: true, complete: start >= text.length };
  }
  return { tokens, over: false, complete: true };
}

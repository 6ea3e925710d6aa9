// Request sizes with N sub-agents installed beside the corpus's skills (issue 27): what the model
// is sent on a new thread's first call (system prompt + tool definitions + the first message's
// context, o200k tokens as `inspect prompt` counts them, code mode over the corpus MCP catalog as
// the skills bench measures), in compact listing over many first messages and in full listing.
// The agent listing's bench and its size test share this.
import path from "node:path";
import { loadConfig } from "@thinktank/core";
import { countTokens } from "@thinktank/mcp";
import { openPromptInspector, type PromptInspection } from "../../src/index.js";
import { makeSkillCorpusProject } from "./skill-corpus-project.js";

export interface AgentListingSizes {
  /** Sub-agents installed (the built-in included) and skills beside them. */
  readonly agents: number;
  /** Whether the agents were grown from the plugins' skills too (the catalog most requests find agents in). */
  readonly fromSkills: boolean;
  readonly skills: number;
  readonly full: {
    /** The first request with full listing (every skill, command and agent in the system prompt). */
    readonly total: number;
    /** Tokens of the full `<subagent_system>` alone, and the agents it lists. */
    readonly agentsSection: number;
    readonly listed: number;
  };
  readonly compact: {
    readonly requests: number;
    readonly median: number;
    /** The largest request. */
    readonly max: number;
    readonly systemPrompt: number;
    /** Tokens of the compact `<subagent_system>` alone. */
    readonly agentsSection: number;
    readonly tools: number;
    readonly contextMax: number;
    /** Requests offered at least one agent, and the most agents one request was offered. */
    readonly offeredAgents: number;
    readonly mostAgents: number;
    /** The most agents one request named after the described ones (subagent_type alone). */
    readonly mostNamedAgents: number;
  };
}

const sectionPattern = /<subagent_system>[\s\S]*?<\/subagent_system>/;

/**
 * First messages that ask for what the corpus's plugin agents do (written for this repository, in
 * users' words), measured beside the skills eval's requests so that the largest request includes
 * messages offered agents, not only skills.
 */
export const agentRequests: readonly string[] = [
  "check this cold email against our brand guidelines before I send it to the prospect",
  "our brand material is scattered over Notion, Confluence and Google Drive: find all of it and tell me what we have",
  "go through these ten recorded sales calls and tell me how our reps actually talk about the product",
  "read our five old brand decks and pull out the voice, the words we always use and good examples",
  "write a long proposal for an enterprise customer that sticks to our tone and messaging rules",
  "audit everything we have published this year for consistency with the brand voice",
  "hand this research off to a helper: compare the three vendors' pricing pages and summarise the differences",
  "delegate the long-form blog post draft to whichever agent knows our brand voice best",
];

export interface MeasureAgentListingOptions {
  /** Corpus skills beside the agents. @default 450 (as the skills bench's bound) */
  readonly skills?: number;
  /** Grow agents from the plugins' skills too (makeSkillCorpusProject's agentsFromSkills). @default false */
  readonly fromSkills?: boolean;
}

/** Sizes with `agents` sub-agents beside corpus skills, over `messages` as first messages (compact) and one greeting (full). */
export async function measureAgentListing(corpus: string, agents: number, messages: readonly string[], options: MeasureAgentListingOptions = {}): Promise<AgentListingSizes> {
  const skills = options.skills ?? 450;
  const fromSkills = options.fromSkills ?? false;
  const project = await makeSkillCorpusProject(corpus, skills, "", { agents, agentsFromSkills: fromSkills });
  try {
    const config = loadConfig({ cwd: project.dir, env: { PATH: process.env.PATH ?? "" } });
    const catalogDir = path.join(corpus, "mcp-tools");
    const full = await openPromptInspector(config, { mode: "code", listing: "full", catalogDir });
    const fullFirst = await full.inspect("hello").finally(() => full.close());
    const fullSection = sectionPattern.exec(fullFirst.systemPrompt)?.[0] ?? "";
    const compact = await openPromptInspector(config, { mode: "code", listing: "compact", catalogDir });
    const totals: number[] = [];
    let first: PromptInspection | undefined;
    let contextMax = 0;
    let offeredAgents = 0;
    let mostAgents = 0;
    let mostNamedAgents = 0;
    try {
      for (const message of messages) {
        const inspection = await compact.inspect(message);
        first ??= inspection;
        if (inspection.systemPrompt !== first.systemPrompt) throw new Error("the compact system prompt changed between first messages");
        totals.push(inspection.tokens.total);
        contextMax = Math.max(contextMax, inspection.tokens.messageContext);
        const offered = /Sub-agents that could take it on[^\n]*\n((?:- [^\n]*\n?)*)/.exec(inspection.messageContext)?.[1]?.split("\n").filter(Boolean).length ?? 0;
        if (offered > 0) offeredAgents++;
        mostAgents = Math.max(mostAgents, offered);
        const named = /Further sub-agents that may fit[^\n]*\n([^\n]*)/.exec(inspection.messageContext)?.[1]?.split(", ").length ?? 0;
        if (offered === 0 && named > 0) offeredAgents++;
        mostNamedAgents = Math.max(mostNamedAgents, named);
      }
    } finally {
      await compact.close();
    }
    const sorted = [...totals].sort((a, b) => a - b);
    return {
      agents,
      fromSkills,
      skills,
      full: { total: fullFirst.tokens.total, agentsSection: countTokens(fullSection), listed: fullSection.split("\n").filter((line) => line.startsWith("- ")).length },
      compact: {
        requests: totals.length,
        median: sorted[Math.floor(sorted.length / 2)] ?? 0,
        max: sorted.at(-1) ?? 0,
        systemPrompt: first?.tokens.systemPrompt ?? 0,
        agentsSection: countTokens(sectionPattern.exec(first?.systemPrompt ?? "")?.[0] ?? ""),
        tools: first?.tokens.tools ?? 0,
        contextMax,
        offeredAgents,
        mostAgents,
        mostNamedAgents,
      },
    };
  } finally {
    project.cleanup();
  }
}

import { describe, expect, it } from "vitest";
import { parseSkill } from "../read-skill.js";
import { renderSkillSystem } from "../render-skill-system.js";
import { summarizeAgentDescription, type SearchableAgent } from "../search/agent-search-index.js";
import { SkillSearchIndex } from "../search/skill-search-index.js";
import type { Skill, SkillSource } from "../skill-types.js";
import { renderRelevantSkills } from "./render-relevant-skills.js";
import { SkillListing, type SkillListingOptions } from "./skill-listing.js";

function skill(category: SkillSource["category"], name: string, description: string): Skill {
  const source: SkillSource = { category, root: `/srv/${category}`, containerPrefix: category.startsWith("plugin:") ? `plugins/${category.slice(7)}` : category };
  const result = parseSkill(`---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\nbody\n`, { source, relativePath: name, dir: `/srv/${category}/${name}`, file: `/srv/${category}/${name}/SKILL.md`, containerPath: "/mnt/skills" });
  if (!result.ok) throw new Error(result.problem.message);
  return { ...result.skill, enabled: true, trusted: category === "public", scriptsApproved: false };
}

const skills: Skill[] = [
  skill("public", "pdf", "Fill in and merge PDF forms. Use for any PDF file."),
  skill("plugin:sales", "call-prep", "Prepare for a sales call: account context, attendees and an agenda."),
  skill("plugin:finance", "forecast", "Build a weighted revenue forecast for the quarter."),
];

const agents: SearchableAgent[] = [
  { identity: "builtin:general-purpose", name: "general-purpose", description: "Takes any self-contained sub-task with the same tools as the lead and reports back." },
  {
    identity: "plugin:brand:tone-checker",
    name: "tone-checker",
    description: "Checks drafts against the <house> style guide & tone rules. Use it before sending customer copy.\n\n<example>\nuser: \"is this email on brand?\"\nassistant: \"I'll have the tone checker look\"\n</example>",
  },
  { identity: "plugin:security:reviewer", name: "reviewer", description: "Reviews code changes for injection, secrets in source and unsafe deserialization." },
  { identity: "custom:reviewer", name: "reviewer", description: "Reviews pull requests for naming, tests and documentation." },
  { identity: "user:travel-planner", name: "travel-planner", description: "Plans trips: flights, hotels and an itinerary within a budget." },
];

function listingOf(options: Partial<SkillListingOptions> = {}): SkillListing {
  const snapshot = { skills, promptSection: renderSkillSystem(skills), search: new SkillSearchIndex(skills) };
  return new SkillListing(snapshot, [], () => "", { listing: "compact", autoThresholdTokens: 2000, relevantLimit: 5, countTokens: (text) => text.length, agents, ...options });
}

/** `n` agents spread over plugins of five. */
function many(n: number): SearchableAgent[] {
  return Array.from({ length: n }, (_, index) => ({ identity: `plugin:team-${Math.floor(index / 5)}:helper-${index}`, name: `helper-${index}`, description: `Handles request family ${index}: reads inputs and writes a short report.` }));
}

describe("SkillListing with sub-agents", () => {
  it("full lists every agent in <subagent_system> by the subagent_type to pass, one line each, examples left out", () => {
    const listing = listingOf({ listing: "full" });
    expect(listing.agentsSection).toBe(
      [
        "<subagent_system>",
        "task(subagent_type, description, prompt) hands a self-contained sub-task to a sub-agent, which works in a fresh context of its own and returns only its final answer. Pass one of these as subagent_type:",
        "- general-purpose: Takes any self-contained sub-task with the same tools as the lead and reports back.",
        "- tone-checker: Checks drafts against the &lt;house&gt; style guide &amp; tone rules. Use it before sending customer copy.",
        "- plugin:security:reviewer: Reviews code changes for injection, secrets in source and unsafe deserialization.",
        "- custom:reviewer: Reviews pull requests for naming, tests and documentation.",
        "- travel-planner: Plans trips: flights, hotels and an itinerary within a budget.",
        "</subagent_system>",
      ].join("\n"),
    );
    expect(listing.relevantTo("plan my trip to Lisbon")).toBeUndefined();
    expect(listing.searchable).toBe(false);
  });

  it("compact names no agent but the built-ins: the count, and how to find them", () => {
    const listing = listingOf();
    const section = listing.agentsSection;
    expect(section).toContain("5 sub-agents are installed");
    expect(section).toContain('search_skills(query, kind: "agents")');
    expect(section).toContain("<relevant_skills>");
    expect(section).toContain("- Always there: general-purpose: Takes any self-contained sub-task");
    for (const name of ["tone-checker", "reviewer", "travel-planner"]) expect(section).not.toContain(name);
    expect(listingOf({ relevantLimit: 0 }).agentsSection).not.toContain("<relevant_skills>");
    // The same size for 10 or 1,000 agents (only the count's digits differ).
    const ten = listingOf({ agents: many(10) }).agentsSection;
    const thousand = listingOf({ agents: many(1000) }).agentsSection;
    expect(thousand.length - ten.length).toBe(2);
  });

  it("no agents, or subagents disabled (no agents passed): no section, nothing offered or found, search_skills kinds unchanged", () => {
    for (const options of [{ agents: [] }, { agents: undefined }]) {
      for (const mode of ["full", "compact"] as const) expect(listingOf({ ...options, listing: mode }).agentsSection).toBe("");
      const listing = listingOf(options);
      expect(listing.relevantTo("plan my trip to Lisbon")).toEqual({ skills: [], commands: [] });
      expect(listing.search("forecast")).not.toHaveProperty("agents");
      expect(listing.search("travel", { kind: "agents" }).agents).toEqual([]);
    }
  });

  it("auto counts the agents' full section against the threshold too", () => {
    const withoutAgents = `${renderSkillSystem(skills)}\n\n`.length;
    const withAgents = withoutAgents + `\n\n${listingOf({ listing: "full" }).agentsSection}`.length;
    expect(listingOf({ agents: undefined, listing: "auto", autoThresholdTokens: withoutAgents }).mode).toBe("full");
    const over = listingOf({ listing: "auto", autoThresholdTokens: withAgents - 1 });
    expect(over.mode).toBe("compact");
    expect(over.reason).toBe(`auto: listing 3 skills, 0 slash commands and 5 sub-agents costs ${withAgents} tokens, more than skills.auto_threshold_tokens (${withAgents - 1})`);
    expect(listingOf({ listing: "auto", autoThresholdTokens: withAgents }).mode).toBe("full");
  });

  it("offers the agents that match a message beside its skills, by subagent_type, and none for a greeting", () => {
    const listing = listingOf();
    const relevant = listing.relevantTo("plan a trip to Lisbon with flights and a hotel");
    expect(relevant?.agents?.[0]).toEqual({ identity: "user:travel-planner", subagentType: "travel-planner", description: "Plans trips: flights, hotels and an itinerary within a budget." });
    const review = listing.relevantTo("review the code changes in this pull request for secrets and injection");
    expect(review?.agents?.map((agent) => agent.subagentType)).toContain("plugin:security:reviewer");
    expect(listing.relevantTo("is this email on brand? check the tone")?.agents?.[0]?.subagentType).toBe("tone-checker");
    // Nothing offered: no agents key, as a message stored before agents existed.
    expect(listing.relevantTo("hello there")).toEqual({ skills: [], commands: [] });
    expect(listing.relevantTo("  ")).toEqual({ skills: [], commands: [] });
    expect(listingOf({ relevantAgentLimit: 0 }).relevantTo("plan a trip to Lisbon")).not.toHaveProperty("agents");
    const crowded = listingOf({ agents: [...many(200), ...agents] });
    const report = crowded.relevantTo("reads inputs and writes a short report");
    expect(report?.agents).toHaveLength(3);
    // The agents ranked next are named by subagent_type alone, up to relevantNamedAgentLimit.
    expect(report?.moreAgents).toHaveLength(5);
    expect(report?.moreAgents?.[0]).toEqual({ identity: expect.stringMatching(/^plugin:team-\d+:helper-\d+$/), subagentType: expect.stringMatching(/^helper-\d+$/) });
    const offered = [...(report?.agents ?? []), ...(report?.moreAgents ?? [])].map((agent) => agent.identity);
    expect(new Set(offered).size).toBe(8);
    expect(listingOf({ agents: [...many(200), ...agents], relevantNamedAgentLimit: 0 }).relevantTo("reads inputs and writes a short report")).not.toHaveProperty("moreAgents");
    expect(crowded.relevantTo("plan a trip to Lisbon with flights and a hotel")?.agents?.[0]?.subagentType).toBe("travel-planner");
  });

  it("names agents only from the best relevantLimit + 10 of the joint ranking, however many skills are named", () => {
    const forecasts = Array.from({ length: 20 }, (_, index) => skill(`plugin:fin-${index}`, `forecast-${index}`, `Build a weighted revenue forecast for the quarter, variant ${index}.`));
    const memo: SearchableAgent = { identity: "custom:memo-writer", name: "memo-writer", description: "Writes a short memo about a forecast." };
    const listingWith = (all: Skill[]) => new SkillListing({ skills: all, promptSection: renderSkillSystem(all), search: new SkillSearchIndex(all) }, [], () => "", { listing: "compact", autoThresholdTokens: 0, relevantLimit: 5, relevantNamedLimit: 25, countTokens: (text) => text.length, agents: [memo] });
    const query = "weighted revenue forecast for the quarter";
    // Twenty skills match better: the agent ranks 21st, past 5 + 10, though 25 skills are named.
    const crowded = listingWith(forecasts).relevantTo(query);
    expect(crowded?.moreSkills).toHaveLength(15);
    expect(crowded).not.toHaveProperty("moreAgents");
    expect(listingWith(forecasts.slice(0, 8)).relevantTo(query)?.moreAgents).toEqual([{ identity: "custom:memo-writer", subagentType: "memo-writer" }]);
  });

  it("search_skills kind agents finds an agent by task, name or identity; kind all adds agents; a disabled agent (not passed) is never found", () => {
    const listing = listingOf({ agents: agents.filter((agent) => agent.identity !== "custom:reviewer") });
    expect(listing.searchable).toBe(true);
    expect(listing.search("flights and hotels for a trip", { kind: "agents" }).agents?.[0]).toMatchObject({ identity: "user:travel-planner", subagentType: "travel-planner" });
    expect(listing.search("tone-checker", { kind: "agents" }).agents?.[0]?.identity).toBe("plugin:brand:tone-checker");
    expect(listing.search("plugin:security:reviewer", { kind: "agents" }).agents?.[0]).toMatchObject({ identity: "plugin:security:reviewer", subagentType: "reviewer" });
    const found = listing.search("review pull requests for naming tests and documentation", { kind: "agents", limit: 50 }).agents ?? [];
    expect(found.map((hit) => hit.identity)).not.toContain("custom:reviewer");
    const all = listing.search("revenue forecast and a trip plan");
    expect(all.skills?.[0]?.identity).toBe("plugin:finance:forecast");
    expect(all.agents?.[0]?.identity).toBe("user:travel-planner");
    expect(listing.search("forecast", { kind: "skills" })).not.toHaveProperty("agents");
    expect(listing.search("trip", { kind: "agents" })).not.toHaveProperty("skills");
    expect(() => listing.search("x", { kind: "everything" as never })).toThrow(/kind must be skills, commands, agents or all/);
  });
});

describe("agent descriptions and offers", () => {
  it("summarizeAgentDescription drops examples and cuts after a sentence or on a word", () => {
    expect(summarizeAgentDescription(agents[1]?.description ?? "", 200)).toBe("Checks drafts against the <house> style guide & tone rules. Use it before sending customer copy.");
    expect(summarizeAgentDescription(agents[1]?.description ?? "", 80)).toBe("Checks drafts against the <house> style guide & tone rules.");
    expect(summarizeAgentDescription("one two three four five six seven eight nine ten", 30)).toBe("one two three four five six…");
    expect(summarizeAgentDescription("Unclosed <example> runs to the end", 100)).toBe("Unclosed");
  });

  it("renderRelevantSkills shows the offered agents after skills and commands, escaped; stored contexts without agents render as before", () => {
    const skill = { identity: "public:pdf", name: "pdf", description: "Fill in PDF forms.", location: "/mnt/skills/public/pdf/SKILL.md" };
    const before = renderRelevantSkills({ skills: [skill], commands: [] });
    expect(renderRelevantSkills({ skills: [skill], commands: [], agents: [] })).toBe(before);
    expect(renderRelevantSkills({ skills: [skill], commands: [], agents: [{ identity: "custom:a<b", subagentType: "a<b", description: "Does x & y." }] })).toBe(
      [before.replace("\n</relevant_skills>", ""), "Sub-agents that could take it on (task with this subagent_type):", "- a&lt;b: Does x &amp; y.", "</relevant_skills>"].join("\n"),
    );
    expect(renderRelevantSkills({ skills: [], commands: [], agents: [{ identity: "custom:a", subagentType: "a", description: "Does x." }] })).toContain("- a: Does x.");
    expect(renderRelevantSkills({ skills: [], commands: [], agents: [{ identity: "custom:a", subagentType: "a", description: "Does x." }], moreAgents: [{ identity: "custom:b&c", subagentType: "b&c" }, { identity: "plugin:p:d", subagentType: "d" }] }).split("\n").slice(-3)).toEqual([
      "Further sub-agents that may fit, by subagent_type (search_skills with kind agents describes one):",
      "b&amp;c, d",
      "</relevant_skills>",
    ]);
  });
});

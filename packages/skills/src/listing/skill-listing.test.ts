import { describe, expect, it } from "vitest";
import { parseSkill } from "../read-skill.js";
import { renderSkillSystem } from "../render-skill-system.js";
import type { SearchableCommand } from "../search/command-search-index.js";
import { SkillSearchIndex } from "../search/skill-search-index.js";
import type { Skill, SkillSource } from "../skill-types.js";
import { renderNamedSkills } from "./render-named-skills.js";
import { renderRelevantSkills } from "./render-relevant-skills.js";
import { SkillListing, type SkillListingOptions } from "./skill-listing.js";

function skill(category: SkillSource["category"], name: string, description: string, extra = ""): Skill {
  const source: SkillSource = { category, root: `/srv/${category}`, containerPrefix: category.startsWith("plugin:") ? `plugins/${category.slice(7)}` : category };
  const result = parseSkill(`---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n${extra}---\nbody\n`, { source, relativePath: name, dir: `/srv/${category}/${name}`, file: `/srv/${category}/${name}/SKILL.md`, containerPath: "/mnt/skills" });
  if (!result.ok) throw new Error(result.problem.message);
  return { ...result.skill, enabled: true, trusted: category === "public", scriptsApproved: false };
}

const base: Skill[] = [
  skill("public", "pdf", "Fill in and merge PDF forms. Use for any PDF file."),
  skill("custom", "brand-kit", "Apply the house look <colours & type> to slides and posters."),
  skill("plugin:sales", "call-prep", "Prepare for a sales call: account context, attendees and an agenda."),
  skill("plugin:sales", "forecast", "Build a weighted revenue forecast for the quarter."),
  skill("plugin:ops", "rotate-keys", "Rotate the signing keys of the release build.", "disable-model-invocation: true\n"),
  { ...skill("plugin:legal", "review", "Review a contract against the playbook."), enabled: false },
];

/** The agent's command list for these skills: user-invocable skills, plus two plugin commands. */
function commandsOf(skills: readonly Skill[]): SearchableCommand[] {
  return [
    ...skills
      .filter((entry) => entry.enabled)
      .map((entry): SearchableCommand => {
        const plugin = entry.category.startsWith("plugin:") ? entry.category.slice(7) : undefined;
        return { kind: "skill", name: entry.name, invocation: plugin ? `/${plugin}:${entry.name}` : `/${entry.name}`, description: entry.description, identity: entry.identity, ...(plugin ? { plugin } : {}) };
      }),
    { kind: "command", name: "pipeline", invocation: "/sales:pipeline", description: "Review the open pipeline by stage and flag stalled deals.", plugin: "sales", argumentHint: "[stage]" },
    { kind: "command", name: "standup", invocation: "/ops:standup", description: "Write the daily standup from yesterday's tickets.", plugin: "ops" },
  ];
}

function listingOf(skills: readonly Skill[], options: Partial<SkillListingOptions> = {}): SkillListing {
  const snapshot = { skills, promptSection: renderSkillSystem(skills), search: new SkillSearchIndex(skills) };
  return new SkillListing(snapshot, commandsOf(skills), () => "<slash_commands>\nevery command\n</slash_commands>", { listing: "compact", autoThresholdTokens: 2000, relevantLimit: 5, countTokens: (text) => Math.ceil(text.length / 4), ...options });
}

/** `n` plugin skills spread over plugins of ten. */
function many(n: number): Skill[] {
  return Array.from({ length: n }, (_, index) => skill(`plugin:group-${String(Math.floor(index / 10)).padStart(3, "0")}`, `task-${index}`, `Handles request family ${index}: reads inputs and writes a short report.`));
}

describe("SkillListing", () => {
  it("full shows every skill and command in the system prompt and offers nothing per message", () => {
    const listing = listingOf(base, { listing: "full" });
    expect(listing.mode).toBe("full");
    expect(listing.reason).toBe("skills.listing is full");
    expect(listing.skillsSection).toBe(renderSkillSystem(base));
    expect(listing.commandsSection).toBe("<slash_commands>\nevery command\n</slash_commands>");
    expect(listing.searchable).toBe(false);
    expect(listing.relevantTo("prepare my sales call")).toBeUndefined();
  });

  it("auto is full while skills and commands together cost at most the threshold, compact above", () => {
    // A counter that adds up over pieces, as o200k does at the pieces' boundaries (one token a character).
    const countTokens = (text: string) => text.length;
    const cost = `${renderSkillSystem(base)}\n\n<slash_commands>\nevery command\n</slash_commands>`.length;
    const at = listingOf(base, { listing: "auto", autoThresholdTokens: cost, countTokens });
    expect(at.mode).toBe("full");
    expect(at.reason).toBe(`auto: listing 4 skills and 7 slash commands costs ${cost} tokens, not more than skills.auto_threshold_tokens (${cost})`);
    const above = listingOf(base, { listing: "auto", autoThresholdTokens: cost - 1, countTokens });
    expect(above.mode).toBe("compact");
    expect(above.reason).toContain(`costs ${cost} tokens, more than skills.auto_threshold_tokens (${cost - 1})`);
  });

  it("auto stops counting once the full listing passes the threshold, counting it in pieces that add up to the whole", () => {
    const skills = many(1000);
    const pieces: string[] = [];
    const countTokens = (text: string) => {
      pieces.push(text);
      return Math.ceil(text.length / 4);
    };
    const listing = listingOf(skills, { listing: "auto", autoThresholdTokens: 2000, countTokens });
    expect(listing.mode).toBe("compact");
    expect(listing.reason).toMatch(/^auto: listing 1000 skills and 1002 slash commands costs more than \d+ tokens, more than skills.auto_threshold_tokens \(2000\)$/);
    const whole = `${renderSkillSystem(skills)}\n\n<slash_commands>\nevery command\n</slash_commands>`;
    expect(pieces.join("").length).toBeLessThan(whole.length / 10);
    expect(whole.startsWith(pieces.join(""))).toBe(true);
    // A piece ends at a line break that no pre-token spans: before a character that is not whitespace or '/'.
    for (const piece of pieces) expect(piece.endsWith("\n")).toBe(true);
    pieces.length = 0;
    expect(listingOf(skills, { listing: "auto", autoThresholdTokens: 1_000_000, countTokens }).mode).toBe("full");
    expect(pieces.join("")).toBe(whole);
  });

  it("compact names no skill in the system prompt: counts by group, and how to find them", () => {
    const listing = listingOf(base);
    expect(listing.skillsSection).toContain("4 are installed");
    expect(listing.skillsSection).toContain("Skills per group: public 1, custom 1, sales 2\n");
    expect(listing.skillsSection).toContain("search_skills(query)");
    expect(listing.skillsSection).toContain("<relevant_skills>");
    for (const name of ["pdf", "brand-kit", "call-prep", "forecast"]) expect(listing.skillsSection).not.toContain(name);
    expect(listing.commandsSection).toContain("The user can run 7 slash commands");
    expect(listing.commandsSection).toContain('search_skills(query, kind: "commands")');
    expect(listing.commandsSection).not.toContain("pipeline");
    expect(listingOf(base, { relevantLimit: 0 }).skillsSection).not.toContain("<relevant_skills>");
  });

  it("compact grows with the number of groups only up to its budget, then not at all", () => {
    const groupsLine = (listing: SkillListing) => /Skills per group: (.*)\n/.exec(listing.skillsSection)?.[1] ?? "";
    const hundred = listingOf(many(100));
    const thousand = listingOf(many(1000));
    const more = listingOf(many(3000));
    expect(groupsLine(hundred)).toMatch(/^group-000 10, .*, group-009 10$/);
    expect(groupsLine(thousand)).toMatch(/, and \d+ more groups \(\d+\)$/);
    expect(groupsLine(thousand).length).toBeLessThanOrEqual(600 + "and 100 more groups (1000)".length);
    expect(Math.abs(more.skillsSection.length - thousand.skillsSection.length)).toBeLessThan(10);
    expect(Math.abs(more.commandsSection.length - thousand.commandsSection.length)).toBeLessThan(10);
  });

  it("offers the skills that match a message, with location, and the commands the skill list does not show", () => {
    const listing = listingOf(base);
    const relevant = listing.relevantTo("get me ready for my sales call with Acme, and what is stalled in the pipeline?");
    expect(relevant?.skills[0]).toEqual({ identity: "plugin:sales:call-prep", name: "call-prep", description: "Prepare for a sales call: account context, attendees and an agenda.", location: "/mnt/skills/plugins/sales/call-prep/SKILL.md" });
    expect(relevant?.commands.map((command) => command.invocation)).toEqual(["/sales:pipeline"]);
    expect(relevant?.commands.some((command) => command.kind === "skill")).toBe(false);
    expect(listing.relevantTo("rotate the signing keys")?.commands).toEqual([
      { kind: "skill", invocation: "/ops:rotate-keys", description: "Rotate the signing keys of the release build.", identity: "plugin:ops:rotate-keys" },
    ]);
    expect(listing.relevantTo("hello there")).toEqual({ skills: [], commands: [] });
    expect(listing.relevantTo("   ")).toEqual({ skills: [], commands: [] });
    expect(listingOf(base, { relevantLimit: 0 }).relevantTo("sales call")).toBeUndefined();
    expect(listingOf(base, { relevantLimit: 1 }).relevantTo("sales call and forecast")?.skills).toHaveLength(1);
  });

  it("names the next matches after the described ones, without descriptions, up to relevantNamedLimit", () => {
    const skills = [...base, ...many(30)];
    const described = listingOf(skills, { relevantLimit: 2 }).relevantTo("a short report for request family 7, and the sales forecast");
    expect(described?.skills).toHaveLength(2);
    expect(described?.moreSkills).toHaveLength(25);
    expect(described?.moreSkills?.[0]).toEqual({ identity: expect.any(String), name: expect.any(String), location: expect.stringMatching(/^\/mnt\/skills\/.+\/SKILL\.md$/) });
    const identities = [...(described?.skills ?? []), ...(described?.moreSkills ?? [])].map((entry) => entry.identity);
    expect(new Set(identities).size).toBe(27);
    expect(listingOf(skills, { relevantLimit: 2, relevantNamedLimit: 3 }).relevantTo("a short report for request family 7")?.moreSkills).toHaveLength(3);
    expect(listingOf(skills, { relevantLimit: 2, relevantNamedLimit: 0 }).relevantTo("a short report for request family 7")).not.toHaveProperty("moreSkills");
    // Fewer matches than described: nothing more to name.
    expect(listingOf(base).relevantTo("sales call")).not.toHaveProperty("moreSkills");
  });

  it("search_skills reaches every skill the model may use and every command; never a disabled one", () => {
    const listing = listingOf(base);
    expect(listing.searchable).toBe(true);
    for (const entry of base.filter((candidate) => candidate.enabled && !candidate.disableModelInvocation)) {
      expect(listing.search(entry.name, { kind: "skills" }).skills?.[0]?.identity).toBe(entry.identity);
      expect(listing.search(entry.identity).skills?.[0]?.location).toBe(entry.containerPath);
    }
    expect(listing.search("standup", { kind: "commands" }).commands?.[0]).toMatchObject({ kind: "command", invocation: "/ops:standup" });
    expect(listing.search("forecast", { kind: "commands" }).commands?.[0]).toMatchObject({ kind: "skill", invocation: "/sales:forecast", identity: "plugin:sales:forecast" });
    const all = listing.search("forecast", { kind: "all" });
    expect(all.skills?.[0]?.identity).toBe("plugin:sales:forecast");
    expect(all.commands?.map((command) => command.invocation)).not.toContain("/sales:forecast");
    expect(listing.search("review a contract against the playbook", { limit: 50 }).skills?.map((hit) => hit.identity)).not.toContain("plugin:legal:review");
    expect(() => listing.search("x", { kind: "everything" as never })).toThrow(/kind must be skills, commands, agents or all/);
  });
});

describe("renderRelevantSkills", () => {
  it("shows each skill with its name, location and description, escaped, and says nothing when nothing is offered", () => {
    const text = renderRelevantSkills({
      skills: [{ identity: "custom:brand-kit", name: "brand-kit", description: "Apply the house look <colours & type>.", location: "/mnt/skills/custom/brand-kit/SKILL.md" }],
      commands: [{ kind: "command", invocation: "/sales:pipeline", argumentHint: "[stage]", description: "Review the open pipeline." }],
    });
    expect(text).toBe(
      [
        "<relevant_skills>",
        "Installed skills that may fit this message (read a skill's SKILL.md at its location before using it; search_skills finds others):",
        "- brand-kit (/mnt/skills/custom/brand-kit/SKILL.md): Apply the house look &lt;colours &amp; type&gt;.",
        "Slash commands the user could run for it:",
        "- /sales:pipeline [stage]: Review the open pipeline.",
        "</relevant_skills>",
      ].join("\n"),
    );
    expect(renderRelevantSkills({ skills: [], commands: [] })).toBe("");
  });

  it("names further skills after the described ones, a line per folder, escaped", () => {
    const text = renderRelevantSkills({
      skills: [{ identity: "public:pdf", name: "pdf", description: "PDF forms.", location: "/mnt/skills/public/pdf/SKILL.md" }],
      moreSkills: [
        { identity: "custom:a<b", name: "a<b", location: "/mnt/skills/custom/a<b/SKILL.md" },
        { identity: "plugin:sales:forecast", name: "forecast", location: "/mnt/skills/plugins/sales/forecast/SKILL.md" },
      ],
      commands: [],
    });
    expect(text.split("\n").slice(2, 6)).toEqual([
      "- pdf (/mnt/skills/public/pdf/SKILL.md): PDF forms.",
      "Further skills that may fit, by folder and name (a skill's SKILL.md is at its folder + name + /SKILL.md):",
      "/mnt/skills/custom/: a&lt;b",
      "/mnt/skills/plugins/sales/: forecast",
    ]);
    // A location that is not <folder>/<name>/SKILL.md is given whole.
    expect(renderRelevantSkills({ skills: [], moreSkills: [{ identity: "public:pdf", name: "pdf", location: "/p" }], commands: [] })).toContain("\npdf (/p)\n");
  });
});

describe("renderNamedSkills", () => {
  it("groups names by folder in the order of each folder's best skill, names best first, nested names too", () => {
    const lines = renderNamedSkills("heading", [
      { name: "helm-upgrade", location: "/mnt/skills/plugins/devops/helm-upgrade/SKILL.md" },
      { name: "forecast", location: "/mnt/skills/plugins/sales/forecast/SKILL.md" },
      { name: "cron-audit", location: "/mnt/skills/plugins/devops/cron-audit/SKILL.md" },
      { name: "contact-center/android", location: "/mnt/skills/plugins/zoom/contact-center/android/SKILL.md" },
    ]);
    expect(lines).toEqual(["heading", "/mnt/skills/plugins/devops/: helm-upgrade, cron-audit", "/mnt/skills/plugins/sales/: forecast", "/mnt/skills/plugins/zoom/: contact-center/android"]);
    expect(renderNamedSkills("heading", [])).toEqual([]);
  });
});

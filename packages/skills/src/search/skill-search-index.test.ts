import path from "node:path";
import { ExtensionsStore, isThinktankError } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadSkills } from "../load-skills.js";
import { defaultSkillSources, pluginSkillSource } from "../skill-sources.js";
import type { Skill, SkillSource } from "../skill-types.js";
import { SkillsSnapshotter } from "../skills-snapshotter.js";
import { CommandSearchIndex } from "./command-search-index.js";
import { SkillSearchIndex } from "./skill-search-index.js";

const skillText = (name: string, description: string, extra = "", body = ""): string => `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n${extra}---\n${body}`;

let temp: { dir: string; cleanup: () => void };
let sources: SkillSource[];
beforeEach(() => {
  temp = makeTempDir("tt-skill-search-");
  writeTree(temp.dir, {
    "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: { "public:docx": { enabled: false } }, plugins: {}, tools: {} }),
    "skills/public/pdf/SKILL.md": skillText("pdf", "Fill in and merge PDF forms.   Use this for any PDF file, including scanned ones that need text recognition first."),
    "skills/public/docx/SKILL.md": skillText("docx", "Edit Word documents and track changes in them."),
    "skills/public/internal/SKILL.md": skillText("internal", "Rotate the signing keys of the release pipeline.", "disable-model-invocation: true\n"),
    "skills/custom/brand-kit/SKILL.md": skillText("brand-kit", "Apply the house look to an artifact.", "", "# Brand kit\n\nColours, type and logo rules for slides and posters.\n\n## Palette\n```\nnot: indexed\n```\n## Typography\n"),
    "plugins/sales/skills/call-prep/SKILL.md": skillText("call-prep", "Prepare for a sales call: account context, attendees and an agenda."),
    "plugins/sales/skills/forecast/SKILL.md": skillText("forecast", "Build a weighted revenue forecast for the quarter."),
    "plugins/zoom/skills/meeting-sdk/ios/SKILL.md": skillText("meeting-sdk/ios", "Embed meetings in an iPhone app with the native SDK."),
  });
  sources = [...defaultSkillSources(path.join(temp.dir, "skills")), pluginSkillSource("sales", path.join(temp.dir, "plugins/sales/skills")), pluginSkillSource("zoom", path.join(temp.dir, "plugins/zoom/skills"))];
});
afterEach(() => temp.cleanup());

async function skills(): Promise<Skill[]> {
  const store = new ExtensionsStore(path.join(temp.dir, "extensions_config.json"));
  return (await loadSkills({ sources, settings: (await store.read()).document })).skills;
}

describe("SkillSearchIndex", () => {
  it("answers identity, name, a one-line description, location and score, best first", async () => {
    const index = new SkillSearchIndex(await skills());
    const [first] = index.search("prep me for my call with Acme tomorrow");
    expect(first).toEqual({
      identity: "plugin:sales:call-prep",
      name: "call-prep",
      description: "Prepare for a sales call: account context, attendees and an agenda.",
      location: "/mnt/skills/plugins/sales/call-prep/SKILL.md",
      score: expect.any(Number),
    });
    expect(index.search("merge two pdf forms", { limit: 1 })).toEqual([expect.objectContaining({ identity: "public:pdf", description: "Fill in and merge PDF forms." })]);
    expect(new SkillSearchIndex(await skills(), { descriptionChars: 20 }).search("pdf")[0]?.description).toBe("Fill in and merge…");
  });

  it("finds plugin skills, nested ones too, and every searchable skill by its own name first", async () => {
    const all = await skills();
    const index = new SkillSearchIndex(all);
    expect(index.search("quarterly revenue forecast")[0]?.identity).toBe("plugin:sales:forecast");
    expect(index.search("embed a meeting in my iphone app")[0]).toMatchObject({ identity: "plugin:zoom:meeting-sdk/ios", location: "/mnt/skills/plugins/zoom/meeting-sdk/ios/SKILL.md" });
    const searchable = all.filter((skill) => skill.enabled && !skill.disableModelInvocation);
    expect(index.size).toBe(searchable.length);
    for (const skill of searchable) expect(index.search(skill.name)[0]?.identity, skill.name).toBe(skill.identity);
  });

  it("puts a skill first for its exact name or identity, however common its words are", async () => {
    writeTree(temp.dir, { "plugins/sales/skills/sales-call/SKILL.md": skillText("sales-call", "Sales call sales call: prepare for a sales call, a sales call, any sales call.") });
    const index = new SkillSearchIndex(await skills());
    expect(index.search("prepare for a sales call")[0]?.identity).toBe("plugin:sales:sales-call");
    expect(index.search("Call-Prep")[0]?.identity).toBe("plugin:sales:call-prep");
    const [first, second] = index.search("plugin:sales:call-prep");
    expect(first?.identity).toBe("plugin:sales:call-prep");
    expect(first?.score).toBeGreaterThanOrEqual(second?.score ?? 0);
  });

  it("never finds a disabled skill or one marked disable-model-invocation", async () => {
    const index = new SkillSearchIndex(await skills());
    const identities = (query: string) => index.search(query, { limit: 50 }).map((hit) => hit.identity);
    expect(identities("track changes in a word document")).not.toContain("public:docx");
    expect(identities("docx")).toEqual([]);
    expect(identities("rotate the signing keys")).not.toContain("public:internal");
  });

  it("reads the body's first paragraph and headings, never its code", async () => {
    const brand = (await skills()).find((skill) => skill.identity === "custom:brand-kit");
    expect(brand?.outline).toBe("Colours, type and logo rules for slides and posters. Brand kit. Palette. Typography");
    const index = new SkillSearchIndex(await skills());
    expect(index.search("typography and logo rules for my poster")[0]?.identity).toBe("custom:brand-kit");
    expect(index.search("indexed", { limit: 50 }).map((hit) => hit.identity)).not.toContain("custom:brand-kit");
  });

  it("reads the words of the body's lists and tables as text, never its code, markup or link targets", async () => {
    const body =
      "# Launch kit\n\nEverything a release needs,\nin one place.\n\n## When to use\n- press announcements and [changelog](https://example.com/guide) entries\n- **store** listings\n\n" +
      '| asset | size |\n|---|---|\n| app store screenshots | 1290×2796 |\n\n<!-- draft --> <img src="x.png">\n```bash\nsecretword --now\n```\n1. Ship it\n';
    writeTree(temp.dir, { "skills/custom/launch-kit/SKILL.md": skillText("launch-kit", "Prepare the assets for a release.", "", body) });
    const all = await skills();
    const kit = all.find((skill) => skill.identity === "custom:launch-kit");
    expect(kit?.bodyText).toBe("Launch kit Everything a release needs, in one place. When to use press announcements and changelog entries store listings asset size app store screenshots 1290×2796 Ship it");
    const index = new SkillSearchIndex(all);
    // Only the body's list and table say "press announcements" and "screenshots".
    expect(index.search("press announcement with screenshots")[0]?.identity).toBe("custom:launch-kit");
    // (Related words off: "png" is rightly related to the screenshots the table names.)
    const literal = new SkillSearchIndex(all, { weights: { related: 0 } });
    for (const word of ["secretword", "example", "png", "draft"]) expect(literal.search(word, { limit: 50 }).map((hit) => hit.identity), word).not.toContain("custom:launch-kit");
  });

  it("lifts a skill whose description quotes what the user says, word for word, placeholders aside", async () => {
    writeTree(temp.dir, {
      "plugins/sales/skills/test-plan/SKILL.md": skillText("test-plan", 'Plan the checks of a release. Trigger with "how should we test", "test plan for [service]".'),
      "plugins/sales/skills/unit-tests/SKILL.md": skillText("unit-tests", "Write unit tests for a new service, test by test."),
    });
    const all = await skills();
    const lifted = new SkillSearchIndex(all);
    expect(lifted.search("how should we test the new service", { limit: 1 })[0]?.name).toBe("test-plan");
    expect(lifted.search("a test plan for billing", { limit: 1 })[0]?.name).toBe("test-plan");
    expect(new SkillSearchIndex(all, { triggerBonus: 0 }).search("how should we test the new service", { limit: 1 })[0]?.name).toBe("unit-tests");
  });

  it("tolerates a typo and reads everyday related words (a file type for its topic)", async () => {
    const index = new SkillSearchIndex(await skills());
    expect(index.search("my forcast", { limit: 1 })[0]?.name).toBe("forecast");
    expect(index.search("my projections", { limit: 1 })[0]?.name).toBe("forecast");
    const literal = new SkillSearchIndex(await skills(), { weights: { related: 0, spelling: 0 } });
    expect(literal.search("my forcast")).toEqual([]);
    expect(literal.search("my projections")).toEqual([]);
    expect(index.search("the deck for my talk needs our logo and colors", { limit: 1 })[0]?.name).toBe("brand-kit");
  });

  it("refuses an empty query and a bad limit, caps a large one, and answers nothing for filler words", async () => {
    const index = new SkillSearchIndex(await skills(), { maxLimit: 2 });
    const codeOf = (run: () => unknown) => {
      try {
        run();
        return "ok";
      } catch (error) {
        return isThinktankError(error) ? error.code : "other";
      }
    };
    expect(codeOf(() => index.search("  "))).toBe("VALIDATION_FAILED");
    expect(codeOf(() => index.search("pdf", { limit: 0 }))).toBe("VALIDATION_FAILED");
    expect(codeOf(() => index.search("pdf", { limit: 1.5 }))).toBe("VALIDATION_FAILED");
    expect(index.search("forms call forecast meeting", { limit: 10 })).toHaveLength(2);
    expect(index.search("can you please do it for me")).toEqual([]);
  });
});

describe("near-copies", () => {
  it("move a near-copy (a fork) after other skills that match almost as well; a copy stays findable by its name", async () => {
    writeTree(temp.dir, {
      "plugins/sales/skills/call-brief/SKILL.md": skillText("call-brief", "Write a short agenda and attendee notes before any sales meeting."),
      "plugins/zoom/skills/call-prep-fork/SKILL.md": skillText("call-prep-fork", "Prepare for a sales call: account context, attendees and the agenda."),
    });
    const all = await skills();
    const query = "prepare an agenda for my sales call with the attendees";
    const spread = new SkillSearchIndex(all).search(query, { limit: 3 }).map((hit) => hit.identity);
    const plain = new SkillSearchIndex(all, { nearCopySimilarity: 1 }).search(query, { limit: 3 }).map((hit) => hit.identity);
    expect(plain.slice(0, 2).sort()).toEqual(["plugin:sales:call-prep", "plugin:zoom:call-prep-fork"]);
    expect(spread[0]).toBe(plain[0]);
    expect(spread[1]).toBe("plugin:sales:call-brief");
    expect(spread).toContain(plain[1]);
    expect(new SkillSearchIndex(all).search("call-prep-fork")[0]?.identity).toBe("plugin:zoom:call-prep-fork");
  });
});

describe("SkillsSnapshot.search", () => {
  it("belongs to its snapshot: the same index until something changes, then a new one without the disabled skill", async () => {
    const store = new ExtensionsStore(path.join(temp.dir, "extensions_config.json"));
    const snapshotter = new SkillsSnapshotter({ sources, settings: store, watch: false });
    try {
      const first = await snapshotter.snapshot();
      expect(first.search.search("forecast")[0]?.identity).toBe("plugin:sales:forecast");
      expect((await snapshotter.snapshot()).search).toBe(first.search);
      await store.update((draft) => {
        draft.skills = { ...draft.skills, "plugin:sales:forecast": { enabled: false } };
      });
      const second = await snapshotter.snapshot();
      expect(second.search).not.toBe(first.search);
      expect(second.search.search("weighted revenue forecast").map((hit) => hit.identity)).not.toContain("plugin:sales:forecast");
    } finally {
      snapshotter.close();
    }
  });
});

describe("CommandSearchIndex", () => {
  it("ranks slash commands and user-invocable skills on the same engine", () => {
    const index = new CommandSearchIndex([
      { kind: "command", name: "call-prep", invocation: "/sales:call-prep", description: "Prepare for a sales call. Pulls the account.", plugin: "sales", argumentHint: "<company>" },
      { kind: "skill", name: "pdf", invocation: "/pdf", description: "Fill in PDF forms.", identity: "public:pdf" },
      { kind: "command", name: "review", invocation: "/legal:review", description: "Review a contract against the playbook.", plugin: "legal" },
    ]);
    expect(index.size).toBe(3);
    expect(index.search("get me ready for the Acme call")).toEqual([
      { kind: "command", invocation: "/sales:call-prep", name: "call-prep", description: "Prepare for a sales call.", plugin: "sales", argumentHint: "<company>", score: expect.any(Number) },
    ]);
    expect(index.search("legal review of this contract")[0]?.invocation).toBe("/legal:review");
    expect(index.search("fill a pdf form")[0]).toMatchObject({ kind: "skill", identity: "public:pdf" });
  });
});

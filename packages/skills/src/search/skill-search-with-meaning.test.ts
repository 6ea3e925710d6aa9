import path from "node:path";
import { ExtensionsStore, loadConfig } from "@thinktank/core";
import { SemanticStage, OpenAiCompatibleEmbedder } from "@thinktank/search";
import { makeTempDir, startEmbeddingsServer, writeTree, type EmbeddingsServer } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderSkillSystem } from "../render-skill-system.js";
import { parseSkill } from "../read-skill.js";
import type { Skill, SkillSource } from "../skill-types.js";
import { SkillListing } from "../listing/skill-listing.js";
import { createSkillsService } from "../create-skills-service.js";
import { SkillSearchIndex } from "./skill-search-index.js";

// Skill search with config.search.embeddings' semantic stage, against a stand-in embeddings
// endpoint over HTTP: each text becomes a vector over a few "meanings", each recognised by several
// words, so a request and a skill that share a meaning but no word come out close.
const meanings = [
  ["gift", "present", "birthday", "get him", "get her", "turns 70"],
  ["fish", "angling", "rod", "lake"],
  ["invoice", "bill", "payment", "owe"],
  ["garden", "plant", "soil", "leaves"],
];
function embedding(text: string): number[] {
  const lower = text.toLowerCase();
  return meanings.map((words) => words.filter((word) => lower.includes(word)).length);
}

function skill(name: string, description: string): Skill {
  const source: SkillSource = { category: "custom", root: "/srv/custom", containerPrefix: "custom" };
  const result = parseSkill(`---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\nbody\n`, { source, relativePath: name, dir: `/srv/custom/${name}`, file: `/srv/custom/${name}/SKILL.md`, containerPath: "/mnt/skills" });
  if (!result.ok) throw new Error(result.problem.message);
  return { ...result.skill, enabled: true, trusted: false, scriptsApproved: false };
}

const skills = [
  skill("gift-ideas", "Suggest presents for a birthday or an anniversary within a budget."),
  skill("fishing-log", "Keep a log of fishing trips: the lake, the rod, what was caught and the weather."),
  skill("invoice-chaser", "Draft polite reminders for an unpaid invoice."),
  skill("plant-doctor", "Diagnose a sick house plant from its leaves and soil."),
];
const request = "my dad turns 70 and likes fishing, what should I get him";

let server: EmbeddingsServer;
beforeAll(async () => {
  server = await startEmbeddingsServer(embedding);
});
afterAll(async () => {
  await server.close();
});

const stageFor = (timeoutMs = 5000) => new SemanticStage({ embedder: new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: "stand-in", timeoutMs }), weight: 0.7 });

describe("SkillSearchIndex.searchWithMeaning", () => {
  it("finds by meaning the skill that keywords rank below another, and embeds each skill once", async () => {
    const index = new SkillSearchIndex(skills);
    expect(index.search(request, { limit: 1 })[0]?.identity).toBe("custom:fishing-log");
    const stage = stageFor();
    server.requests.length = 0;
    const hits = await index.searchWithMeaning(request, stage, { limit: 3 });
    expect(hits[0]).toMatchObject({ identity: "custom:gift-ideas", name: "gift-ideas", location: "/mnt/skills/custom/gift-ideas/SKILL.md" });
    expect(hits).toHaveLength(3);
    expect(server.requests[0]?.input).toHaveLength(1 + skills.length);
    // The next search embeds only its query: the skills' vectors are kept.
    await index.searchWithMeaning("the leaves of my fern are yellow", stage, { limit: 2 });
    expect(server.requests.at(-1)?.input).toEqual(["the leaves of my fern are yellow"]);
  });

  it("keeps the keyword ranking when the embeddings endpoint fails, and refuses what search refuses", async () => {
    const index = new SkillSearchIndex(skills);
    server.failNext();
    const hits = await index.searchWithMeaning(request, stageFor(), { limit: 2 });
    expect(hits.map((hit) => hit.identity)).toEqual(index.search(request, { limit: 2 }).map((hit) => hit.identity));
    await expect(index.searchWithMeaning("  ", stageFor())).rejects.toMatchObject({ code: "VALIDATION_FAILED" });
    await expect(index.searchWithMeaning(request, stageFor(), { limit: 0 })).rejects.toMatchObject({ code: "VALIDATION_FAILED" });
  });

  it("answers with the keyword ranking when the endpoint is slower than timeoutMs, and blends again once it answers", async () => {
    const index = new SkillSearchIndex(skills);
    const stage = stageFor();
    server.requests.length = 0;
    const release = server.holdNext();
    const hits = await index.searchWithMeaning(request, stage, { limit: 2, timeoutMs: 50 });
    expect(hits.map((hit) => hit.identity)).toEqual(index.search(request, { limit: 2 }).map((hit) => hit.identity));
    const answered = new Promise<void>((resolve) => server.onAnswered(resolve));
    release();
    await answered;
    const later = await index.searchWithMeaning(request, stage, { limit: 2, timeoutMs: 5000 });
    expect(later[0]?.identity).toBe("custom:gift-ideas");
  });
});

describe("SkillListing with a semantic stage", () => {
  const listing = (semantic?: SemanticStage) =>
    new SkillListing({ skills, promptSection: renderSkillSystem(skills), search: new SkillSearchIndex(skills) }, [], () => "", { listing: "compact", autoThresholdTokens: 0, relevantLimit: 1, relevantNamedLimit: 1, countTokens: (text) => text.length, ...(semantic ? { semantic: { stage: semantic } } : {}) });

  it("offers with a message and answers search_skills by keywords and meaning; without a stage, by keywords", async () => {
    const stage = stageFor();
    expect((await listing(stage).relevantToBlended(request))?.skills.map((entry) => entry.identity)).toEqual(["custom:gift-ideas"]);
    expect((await listing(stage).searchBlended(request, { kind: "skills", limit: 1 })).skills?.map((hit) => hit.identity)).toEqual(["custom:gift-ideas"]);
    expect((await listing().relevantToBlended(request))?.skills.map((entry) => entry.identity)).toEqual(["custom:fishing-log"]);
    expect((await listing(stage).searchBlended(request, { kind: "commands" })).skills).toBeUndefined();
  });
});

describe("SkillsService with search.embeddings (the gateway's and the CLI's skill search)", () => {
  it("ranks by keywords and meaning when config.search.embeddings is set, by keywords otherwise", async () => {
    const { dir, cleanup } = makeTempDir("tt-skills-meaning-");
    writeTree(dir, { "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }) });
    writeTree(dir, Object.fromEntries(skills.map((entry) => [`skills/custom/${entry.name}/SKILL.md`, `---\nname: ${entry.name}\ndescription: ${JSON.stringify(entry.description)}\n---\nbody\n`])));
    const serviceFor = (lines: string[]) => {
      writeTree(dir, { "config.yaml": lines.join("\n") });
      const config = loadConfig({ cwd: dir, env: {} });
      return createSkillsService({ skillsRoot: path.join(dir, "skills"), store: new ExtensionsStore(path.join(dir, "extensions_config.json")), watch: false, searchConfig: config });
    };
    const blended = serviceFor(["search:", "  embeddings:", "    provider: openai-compatible", "    model: stand-in", `    base_url: ${server.baseUrl}`, "    weight: 0.7"]);
    const plain = serviceFor(["search: {}"]);
    try {
      expect((await blended.service.search(request, { limit: 2 })).map((hit) => hit.identity)).toEqual(["custom:gift-ideas", "custom:fishing-log"]);
      expect((await plain.service.search(request, { limit: 1 })).map((hit) => hit.identity)).toEqual(["custom:fishing-log"]);
    } finally {
      blended.snapshotter.close();
      plain.snapshotter.close();
      cleanup();
    }
  });
});

import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { evaluateRanking, PlainBm25Index } from "@thinktank/search";
import { corpusDir, needs } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { corpusSkillSources } from "../../eval/corpus-skill-sources.js";
import { growSkills } from "../../eval/grow-skills.js";
import { freshSkillSources, unseenSkillsDir } from "../../eval/fresh-skill-sources.js";
import { devGoldFile, freshDevGoldFile, freshHeldOutGoldFile, heldOutGoldFile, readSkillGold, unseenHeldOutGoldFile } from "../../eval/skill-gold.js";
import { loadSkills } from "../load-skills.js";
import { SkillSearchIndex } from "./skill-search-index.js";

/** The held-out split as frozen before any tuning (commit "skills eval: tuning set ..."). */
const heldOutSha256 = "7fbbcf574d4faccf3a090e8d53589403e04eb6828aa7859f104f8efa17e03137";
/** The fresh held-out split (skills the ranking never met, requests in users' words) as frozen before any change was measured on it. */
const freshHeldOutSha256 = "a12af3a698933d22d067a0b16075ef8c1847114f2a05f9050e9dda35ee69ffb7";
/** The unseen held-out split (written after the fresh one was looked at; new skills in unseen/skills) as frozen before any ranking of it was seen. */
const unseenHeldOutSha256 = "7a7c301255b573eacb9a7db315215472415de488fce1d14896c43a9c8433c93b";

type Skills = Awaited<ReturnType<typeof loadSkills>>["skills"];

describe("skill search over the corpus skills (224, and grown to 450)", needs("corpus"), () => {
  // Loaded in beforeAll, not while collecting: without the corpus the suite is skipped, not broken.
  let originals: Skills;
  let grown: Skills;
  let index: SkillSearchIndex;
  let grownIndex: SkillSearchIndex;
  let plain: PlainBm25Index;
  let growth = "";
  beforeAll(async () => {
    const corpus = corpusDir();
    growth = fs.mkdtempSync(path.join(os.tmpdir(), "tt-skill-search-corpus-"));
    originals = (await loadSkills({ sources: corpusSkillSources(corpus) })).skills;
    grown = (await loadSkills({ sources: [...corpusSkillSources(corpus), ...growSkills(originals, growth, 450).sources] })).skills;
    index = new SkillSearchIndex(originals);
    grownIndex = new SkillSearchIndex(grown);
    plain = new PlainBm25Index(grown.map((skill) => ({ id: skill.identity, text: `${skill.category} ${skill.name} ${skill.description}` })));
  });
  afterAll(() => {
    if (growth) fs.rmSync(growth, { recursive: true, force: true });
  });
  const dev = readSkillGold(devGoldFile);
  const heldOut = readSkillGold(heldOutGoldFile);

  const plainRanking = (query: string) => plain.search(query, 10).map((hit) => hit.id);

  it("has gold pairs for every corpus skill, two to four each, naming only skills that exist; the held-out split is as frozen", () => {
    expect(originals).toHaveLength(224);
    expect(grown).toHaveLength(450);
    const identities = new Set(originals.map((skill) => skill.identity));
    const perSkill = new Map<string, number>();
    for (const pair of [...dev, ...heldOut]) {
      for (const identity of pair.expected) expect(identities.has(identity), `${pair.id}: ${identity}`).toBe(true);
      perSkill.set(pair.expected[0] as string, (perSkill.get(pair.expected[0] as string) ?? 0) + 1);
    }
    expect([...perSkill.keys()].sort()).toEqual([...identities].sort());
    for (const [identity, count] of perSkill) expect(count, identity).toBeGreaterThanOrEqual(2);
    expect(new Set([...dev, ...heldOut].map((pair) => pair.query)).size).toBe(dev.length + heldOut.length);
    expect(createHash("sha256").update(fs.readFileSync(heldOutGoldFile)).digest("hex")).toBe(heldOutSha256);
  });

  it("offers the skill for requests in users' words among the first three, plugin skills included, with identity and location", () => {
    const cases: [query: string, identity: string][] = [
      ["I have a call with Initech on Thursday, get me up to speed on them", "plugin:sales:call-prep"],
      ["our quarter-end books need the accrual entries drafted", "plugin:finance:journal-entry"],
      ["animate a little gif of our mascot waving for slack", "custom:slack-gif-creator"],
      ["triage this nda that legal just got from a partner", "plugin:legal:triage-nda"],
      ["write a postmortem for the database outage", "plugin:engineering:incident-response"],
    ];
    for (const [query, identity] of cases) {
      const hit = grownIndex.search(query, { limit: 3 }).find((candidate) => candidate.identity === identity);
      expect(hit, query).toBeDefined();
      expect(hit?.location).toBe(originals.find((candidate) => candidate.identity === identity)?.containerPath);
    }
    expect(grownIndex.search("I have a call with Initech on Thursday, get me up to speed on them", { limit: 3 }).map((hit) => hit.location)).toContain("/mnt/skills/plugins/sales/call-prep/SKILL.md");
  });

  it("finds every corpus skill first by its identity, and by its name (names shared across plugins come first together)", () => {
    for (const skill of grown) {
      expect(grownIndex.search(skill.identity, { limit: 1 })[0]?.identity).toBe(skill.identity);
      const sameName = grown.filter((other) => other.name === skill.name).length;
      expect(grownIndex.search(skill.name, { limit: sameName }).map((hit) => hit.identity), skill.name).toContain(skill.identity);
    }
  });

  // Floors a little below the figures measured when the weights were set (npm run eval:skills;
  // see eval/README.md): the ranking must keep beating plain BM25 and must not slip.
  it("holds its quality floors on the dev and held-out splits, well above plain BM25", () => {
    const quality = (pairs: typeof dev, searchIndex: SkillSearchIndex) =>
      evaluateRanking(
        pairs.map((pair) => ({ id: pair.id, query: pair.query, accepted: pair.expected })),
        (query) => searchIndex.search(query, { limit: 10 }).map((hit) => hit.identity),
      );
    expect(quality(dev, index).top1).toBeGreaterThanOrEqual(0.9);
    expect(quality(dev, grownIndex).top1).toBeGreaterThanOrEqual(0.88);
    expect(quality(dev, grownIndex).top5).toBeGreaterThanOrEqual(0.94);
    expect(quality(heldOut, grownIndex).top1).toBeGreaterThanOrEqual(0.87);
    expect(quality(heldOut, grownIndex).top1).toBeGreaterThan(evaluateRanking(heldOut.map((pair) => ({ id: pair.id, query: pair.query, accepted: pair.expected })), (query) => plainRanking(query)).top1 + 0.1);
  });

  it("has fresh gold pairs over the corpus and the fresh skills, each fresh skill asked for; the fresh held-out split is as frozen", async () => {
    const fresh = (await loadSkills({ sources: freshSkillSources() })).skills;
    expect(fresh.length).toBeGreaterThanOrEqual(80);
    const identities = new Set([...originals, ...fresh].map((skill) => skill.identity));
    const freshDev = readSkillGold(freshDevGoldFile);
    const freshHeldOut = readSkillGold(freshHeldOutGoldFile);
    for (const pair of [...freshDev, ...freshHeldOut]) for (const identity of pair.expected) expect(identities.has(identity), `${pair.id}: ${identity}`).toBe(true);
    const asked = new Set([...freshDev, ...freshHeldOut].map((pair) => pair.expected[0]));
    for (const skill of fresh) expect(asked.has(skill.identity), skill.identity).toBe(true);
    // A fresh skill is asked for in one split only: the held-out requests' skills are never tuned on through dev requests.
    const devSkills = new Set(freshDev.map((pair) => pair.expected[0]));
    for (const pair of freshHeldOut) if (pair.expected[0]?.startsWith("plugin:") && fresh.some((skill) => skill.identity === pair.expected[0])) expect(devSkills.has(pair.expected[0] as string), pair.id).toBe(false);
    expect(createHash("sha256").update(fs.readFileSync(freshHeldOutGoldFile)).digest("hex")).toBe(freshHeldOutSha256);
    // Floors a little below what eval:skills measured (eval/README.md, "The fresh evaluation"), at 311 skills.
    const withFresh = new SkillSearchIndex([...originals, ...fresh]);
    const ranked = (pairs: typeof freshDev) => evaluateRanking(pairs.map((pair) => ({ id: pair.id, query: pair.query, accepted: pair.expected })), (query) => withFresh.search(query, { limit: 15 }).map((hit) => hit.identity));
    expect(ranked(freshDev).top1).toBeGreaterThanOrEqual(0.72);
    expect(ranked(freshDev).top5).toBeGreaterThanOrEqual(0.93);
    expect(ranked(freshHeldOut).top5).toBeGreaterThanOrEqual(0.92);
  });

  it("has unseen held-out pairs over the corpus, fresh and unseen skills, each unseen skill asked for; the split is as frozen", async () => {
    const fresh = (await loadSkills({ sources: freshSkillSources() })).skills;
    const unseen = (await loadSkills({ sources: freshSkillSources(unseenSkillsDir) })).skills;
    expect(unseen.length).toBeGreaterThanOrEqual(30);
    const identities = new Set([...originals, ...fresh, ...unseen].map((skill) => skill.identity));
    expect(identities.size).toBe(originals.length + fresh.length + unseen.length);
    const pairs = readSkillGold(unseenHeldOutGoldFile);
    expect(pairs.length).toBeGreaterThanOrEqual(200);
    for (const pair of pairs) for (const identity of pair.expected) expect(identities.has(identity), `${pair.id}: ${identity}`).toBe(true);
    const asked = new Set(pairs.map((pair) => pair.expected[0]));
    for (const skill of unseen) expect(asked.has(skill.identity), skill.identity).toBe(true);
    // New requests: none repeats a request of another split.
    const earlier = new Set([devGoldFile, heldOutGoldFile, freshDevGoldFile, freshHeldOutGoldFile].flatMap((file) => readSkillGold(file).map((pair) => pair.query.toLowerCase())));
    for (const pair of pairs) expect(earlier.has(pair.query.toLowerCase()), pair.id).toBe(false);
    expect(createHash("sha256").update(fs.readFileSync(unseenHeldOutGoldFile)).digest("hex")).toBe(unseenHeldOutSha256);
  });
});

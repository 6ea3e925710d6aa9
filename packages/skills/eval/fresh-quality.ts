import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { evaluateRanking } from "@thinktank/search";
import { SkillListing } from "../src/listing/skill-listing.js";
import { loadSkills } from "../src/load-skills.js";
import { renderSkillSystem } from "../src/render-skill-system.js";
import { SkillSearchIndex, type SkillSearchIndexOptions } from "../src/search/skill-search-index.js";
import { corpusSkillSources } from "./corpus-skill-sources.js";
import { freshSkillSources, unseenSkillsDir } from "./fresh-skill-sources.js";
import { growSkills } from "./grow-skills.js";
import { freshHeldOutGoldFile, readSkillGold, unseenHeldOutGoldFile } from "./skill-gold.js";

/** Skill search on the fresh held-out split, one ranking: top-1, top-5, MRR and the share offered with the message. */
export interface FreshQuality {
  readonly skills: number;
  readonly pairs: number;
  readonly top1: number;
  readonly top5: number;
  readonly mrr: number;
  readonly offered: number;
}

/**
 * A held-out split over the corpus and fresh skills grown to `total`: "fresh" (gold/fresh-test.jsonl,
 * looked at since) or "unseen" (gold/unseen-test.jsonl, never tuned on, with the unseen skills
 * installed too). Measured in one run with today's ranking and offer (5 described, 25 named), the
 * same with 10 named (the default of skills.relevant_named_limit until the tool definitions made room for 25), and with the signals added for the fresh split switched
 * off (related words, spelling, trigger phrases; 5 described, none named). For the listing bench.
 */
export async function measureFreshQuality(corpus: string, total: number, split: "fresh" | "unseen" = "fresh"): Promise<{ now: FreshQuality; tenNamed: FreshQuality; signalsOff: FreshQuality }> {
  const sources = [...corpusSkillSources(corpus), ...freshSkillSources(), ...(split === "unseen" ? freshSkillSources(unseenSkillsDir) : [])];
  const originals = (await loadSkills({ sources })).skills;
  const growth = fs.mkdtempSync(path.join(os.tmpdir(), "tt-fresh-quality-"));
  try {
    const skills = (await loadSkills({ sources: [...sources, ...growSkills(originals, growth, total).sources] })).skills;
    const pairs = readSkillGold(split === "unseen" ? unseenHeldOutGoldFile : freshHeldOutGoldFile);
    const measure = (options: SkillSearchIndexOptions, named: number): FreshQuality => {
      const index = new SkillSearchIndex(skills, options);
      const quality = evaluateRanking(
        pairs.map((pair) => ({ id: pair.id, query: pair.query, accepted: pair.expected })),
        (query) => index.search(query, { limit: 10 }).map((hit) => hit.identity),
      );
      const listing = new SkillListing({ skills, promptSection: renderSkillSystem(skills), search: index }, [], () => "", { listing: "compact", autoThresholdTokens: 0, relevantLimit: 5, relevantNamedLimit: named, countTokens: (text) => text.length });
      const offered = pairs.filter((pair) => {
        const relevant = listing.relevantTo(pair.query);
        const identities = [...(relevant?.skills ?? []), ...(relevant?.moreSkills ?? [])].map((skill) => skill.identity);
        return pair.expected.some((identity) => identities.includes(identity));
      }).length;
      return { skills: skills.length, pairs: pairs.length, top1: quality.top1, top5: quality.top5, mrr: quality.mrr, offered: offered / pairs.length };
    };
    return { now: measure({}, 25), tenNamed: measure({}, 10), signalsOff: measure({ weights: { related: 0, spelling: 0 }, triggerBonus: 0 }, 0) };
  } finally {
    fs.rmSync(growth, { recursive: true, force: true });
  }
}

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { evaluateRanking } from "@thinktank/search";
import { SkillListing } from "../src/listing/skill-listing.js";
import { loadSkills } from "../src/load-skills.js";
import { renderSkillSystem } from "../src/render-skill-system.js";
import { SkillSearchIndex, type SkillSearchIndexOptions } from "../src/search/skill-search-index.js";
import { corpusSkillSources } from "./corpus-skill-sources.js";
import { freshSkillSources } from "./fresh-skill-sources.js";
import { growSkills } from "./grow-skills.js";
import { freshHeldOutGoldFile, readSkillGold } from "./skill-gold.js";

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
 * The fresh held-out split (gold/fresh-test.jsonl, never tuned on) over the corpus and fresh
 * skills grown to `total`, with today's ranking and offer (5 described, 10 named) and with the
 * signals added for it switched off (related words, spelling, trigger phrases; 5 described, none
 * named), measured in one run. For the listing bench.
 */
export async function measureFreshQuality(corpus: string, total: number): Promise<{ now: FreshQuality; signalsOff: FreshQuality }> {
  const sources = [...corpusSkillSources(corpus), ...freshSkillSources()];
  const originals = (await loadSkills({ sources })).skills;
  const growth = fs.mkdtempSync(path.join(os.tmpdir(), "tt-fresh-quality-"));
  try {
    const skills = (await loadSkills({ sources: [...sources, ...growSkills(originals, growth, total).sources] })).skills;
    const pairs = readSkillGold(freshHeldOutGoldFile);
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
    return { now: measure({}, 10), signalsOff: measure({ weights: { related: 0, spelling: 0 }, triggerBonus: 0 }, 0) };
  } finally {
    fs.rmSync(growth, { recursive: true, force: true });
  }
}

// `npx tsx packages/mcp/eval/tune-weights.ts [--rounds 3] [--only k1,synonym]`: fits the ranking
// weights of search_tools on the tuning pairs by coordinate ascent, and prints the best weights.
//
// The procedure: start from the current defaults; for each weight in turn, try it scaled by
// 0.5, 0.75, 1.25 and 1.5 (and 0 and +0.1 for weights that may be zero) with every other weight
// fixed, and keep a change only when it raises the objective by more than 0.1 point; repeat
// until a round changes nothing. The objective is top-1 accuracy plus half the MRR (which breaks
// ties towards ranking the right tool higher), over the tuning pairs only: the dev split of
// gold-set.jsonl, its old held-out split (used for tuning since the v2 held-out set replaced it)
// and gold/dev-v2.jsonl. gold/test-v2.jsonl is never read here.
import { parseArgs } from "node:util";
import path from "node:path";
import { corpusDir } from "@thinktank/testing";
import { defaultRankingWeights } from "../src/search/default-ranking-weights.js";
import { evaluateRanking } from "../src/search/evaluate-ranking.js";
import { readGoldSet } from "../src/search/gold-set.js";
import { fieldNames, type RankingWeights } from "../src/search/search-types.js";
import { ToolSearchIndex } from "../src/search/tool-search-index.js";
import { devV2File, goldSetFile, loadEvalCatalog } from "./eval-catalog.js";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "3" }, only: { type: "string" } } });
const servers = loadEvalCatalog(path.join(corpusDir(process.env), "mcp-tools"));
const pairs = [...readGoldSet(goldSetFile), ...readGoldSet(devV2File)];

type Knob = { name: string; get: (w: RankingWeights) => number; set: (w: RankingWeights, value: number) => RankingWeights; mayBeZero: boolean };
const scalar = (name: keyof RankingWeights, mayBeZero = true): Knob => ({
  name,
  get: (w) => w[name] as number,
  set: (w, value) => ({ ...w, [name]: value }),
  mayBeZero,
});
const knobs: Knob[] = [
  ...fieldNames.map((field): Knob => ({ name: `fields.${field}`, get: (w) => w.fields[field], set: (w, v) => ({ ...w, fields: { ...w.fields, [field]: v } }), mayBeZero: true })),
  ...fieldNames.map((field): Knob => ({ name: `lengthNormalization.${field}`, get: (w) => w.lengthNormalization[field], set: (w, v) => ({ ...w, lengthNormalization: { ...w.lengthNormalization, [field]: Math.min(1, v) } }), mayBeZero: true })),
  scalar("k1", false),
  scalar("synonym"),
  scalar("quoted"),
  scalar("entity"),
  scalar("serverBoost"),
  scalar("mentionBoost"),
  scalar("coverage"),
  scalar("fullMatch"),
  scalar("nameMatch"),
  scalar("actionAgree"),
  scalar("actionConflict"),
  scalar("numberAgree"),
].filter((knob) => !values.only || values.only.split(",").includes(knob.name));

function objective(weights: RankingWeights): { score: number; top1: number; mrr: number } {
  const index = new ToolSearchIndex({ maxLimit: 10, weights });
  index.syncServers(servers);
  const quality = evaluateRanking(pairs, (query) => index.search(query, { limit: 10 }));
  return { score: quality.top1 * 100 + quality.mrr * 50, top1: quality.top1, mrr: quality.mrr };
}

let best = defaultRankingWeights;
let bestResult = objective(best);
console.log(`start: top-1 ${(bestResult.top1 * 100).toFixed(1)}%, MRR ${bestResult.mrr.toFixed(3)} over ${pairs.length} tuning pairs`);
for (let round = 1; round <= Number(values.rounds); round++) {
  let changed = false;
  for (const knob of knobs) {
    const current = knob.get(best);
    const trials = new Set([current * 0.5, current * 0.75, current * 1.25, current * 1.5, ...(knob.mayBeZero ? [0, current + 0.1] : [])]);
    trials.delete(current);
    for (const value of trials) {
      const candidate = knob.set(best, Math.round(value * 1000) / 1000);
      const result = objective(candidate);
      if (result.score > bestResult.score + 0.1) {
        console.log(`round ${round}: ${knob.name} ${current} → ${knob.get(candidate)}: top-1 ${(result.top1 * 100).toFixed(1)}%, MRR ${result.mrr.toFixed(3)}`);
        best = candidate;
        bestResult = result;
        changed = true;
      }
    }
  }
  if (!changed) break;
}
console.log(JSON.stringify(best, null, 2));

// `npx tsx --conditions=development packages/mcp/eval/tune-weights.ts [--stage keyword|rerank|both] [--rounds 3] [--folds 0]`:
// fits the ranking weights of search_tools on the tuning pairs by coordinate ascent and prints
// the best weights (to be copied into src/search/default-ranking-weights.ts by hand).
//
// The procedure: start from the current defaults; for each weight in turn, try a few values with
// every other weight fixed (the keyword knobs scaled by 0.5, 0.75, 1.25 and 1.5, plus 0 and +0.1
// where zero is allowed; the second-stage weights moved by ±0.1, ±0.25 and ±0.5), and keep a
// change only when it raises the objective by more than 0.1 point; repeat until a round changes
// nothing. The objective is top-1 accuracy plus half the MRR, over the tuning pairs only: the dev
// split of gold-set.jsonl, its old held-out split (tuned on since gold/test-v2.jsonl replaced it)
// and gold/dev-v2.jsonl. gold/test-v2.jsonl is never read here.
//
// The keyword stage rebuilds the index for every trial (about a second each). The second stage
// re-scores the keyword top of every pair from `ToolSearchIndex.explain`, computed once, so it is
// fast enough for `--folds N`: fit on all folds but one, score the one left out, in turn, which
// shows how much of a gain is fitting noise.
import { parseArgs } from "node:util";
import path from "node:path";
import { corpusDir } from "@thinktank/testing";
import { defaultRankingWeights } from "../src/search/default-ranking-weights.js";
import { evaluateToolRanking } from "../src/search/evaluate-tool-ranking.js";
import { readGoldSet, type GoldPair } from "../src/search/gold-set.js";
import { fieldNames, rerankFeatureNames, type RankingWeights } from "../src/search/search-types.js";
import { ToolSearchIndex, type RankingExplanation } from "../src/search/tool-search-index.js";
import { devV2File, goldSetFile, loadEvalCatalog } from "./eval-catalog.js";

const { values } = parseArgs({ options: { stage: { type: "string", default: "both" }, rounds: { type: "string", default: "3" }, folds: { type: "string", default: "0" } } });
const servers = loadEvalCatalog(path.join(corpusDir(process.env), "mcp-tools"));
const pairs = [...readGoldSet(goldSetFile), ...readGoldSet(devV2File)];
const rounds = Number(values.rounds);

type Knob = { name: string; get: (w: RankingWeights) => number; set: (w: RankingWeights, value: number) => RankingWeights; trials: (value: number) => number[] };
type Result = { score: number; top1: number; mrr: number };
const scaled = (mayBeZero: boolean) => (v: number) => [v * 0.5, v * 0.75, v * 1.25, v * 1.5, ...(mayBeZero ? [0, v + 0.1] : [])];
const shifted = (v: number) => [v - 0.5, v - 0.25, v - 0.1, v + 0.1, v + 0.25, v + 0.5];
const scalar = (name: keyof RankingWeights, mayBeZero = true): Knob => ({ name, get: (w) => w[name] as number, set: (w, value) => ({ ...w, [name]: value }), trials: scaled(mayBeZero) });

const keywordKnobs: Knob[] = [
  ...fieldNames.map((field): Knob => ({ name: `fields.${field}`, get: (w) => w.fields[field], set: (w, v) => ({ ...w, fields: { ...w.fields, [field]: v } }), trials: scaled(true) })),
  ...fieldNames.map((field): Knob => ({ name: `lengthNormalization.${field}`, get: (w) => w.lengthNormalization[field], set: (w, v) => ({ ...w, lengthNormalization: { ...w.lengthNormalization, [field]: Math.min(1, v) } }), trials: scaled(true) })),
  ...(["synonym", "quoted", "context", "entity", "serverBoost", "mentionBoost", "coverage", "fullMatch", "nameMatch"] as const).map((name) => scalar(name)),
  scalar("k1", false),
];
const rerankKnobs: Knob[] = rerankFeatureNames.map((feature) => ({
  name: `rerank.${feature}`,
  get: (w) => w.rerank[feature],
  set: (w, v) => ({ ...w, rerank: { ...w.rerank, [feature]: v } }),
  trials: shifted,
}));

function measure(top1: number, mrr: number): Result {
  return { score: top1 * 100 + mrr * 50, top1, mrr };
}

/** Coordinate ascent from `start` over `knobs`, judged by `objective`. */
function ascend(start: RankingWeights, knobs: readonly Knob[], objective: (w: RankingWeights) => Result, log: boolean): { weights: RankingWeights; result: Result } {
  let best = start;
  let bestResult = objective(best);
  for (let round = 1; round <= rounds; round++) {
    let changed = false;
    for (const knob of knobs) {
      const current = knob.get(best);
      for (const trial of new Set(knob.trials(current).map((v) => Math.round(v * 1000) / 1000))) {
        if (trial === current) continue;
        const candidate = knob.set(best, trial);
        const result = objective(candidate);
        if (result.score > bestResult.score + 0.1) {
          if (log) console.log(`round ${round}: ${knob.name} ${knob.get(best)} → ${trial}: top-1 ${(result.top1 * 100).toFixed(1)}%, MRR ${result.mrr.toFixed(3)}`);
          best = candidate;
          bestResult = result;
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  return { weights: best, result: bestResult };
}

function keywordObjective(weights: RankingWeights): Result {
  const index = new ToolSearchIndex({ maxLimit: 10, weights });
  index.syncServers(servers);
  const quality = evaluateToolRanking(pairs, (query) => index.search(query, { limit: 10 }));
  return measure(quality.top1, quality.mrr);
}

/** Scores second-stage weights on pre-computed explanations: re-rank each pair's keyword top. */
function rerankObjective(explained: readonly { pair: GoldPair; candidates: readonly RankingExplanation[] }[]) {
  return (weights: RankingWeights): Result => {
    let top1 = 0;
    let reciprocal = 0;
    for (const { pair, candidates } of explained) {
      const accepted = new Set(pair.expected.map((e) => `${e.server}/${e.tool}`));
      const scored = candidates.map((c) => {
        let sum = 0;
        for (const feature of rerankFeatureNames) sum += weights.rerank[feature] * c.features[feature];
        return { key: `${c.server}/${c.name}`, score: c.keywordScore * Math.exp(sum) };
      });
      scored.sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : 1));
      const at = scored.slice(0, 10).findIndex((s) => accepted.has(s.key));
      if (at === 0) top1++;
      if (at >= 0) reciprocal += 1 / (at + 1);
    }
    const count = explained.length || 1;
    return measure(top1 / count, reciprocal / count);
  };
}

let weights = defaultRankingWeights;
if (values.stage !== "rerank") {
  const start = keywordObjective(weights);
  console.log(`keyword stage, start: top-1 ${(start.top1 * 100).toFixed(1)}%, MRR ${start.mrr.toFixed(3)} over ${pairs.length} tuning pairs`);
  weights = ascend(weights, keywordKnobs, keywordObjective, true).weights;
}
if (values.stage !== "keyword") {
  const index = new ToolSearchIndex({ maxLimit: 10, weights });
  index.syncServers(servers);
  const explained = pairs.map((pair) => ({ pair, candidates: index.explain(pair.query) }));
  const start = rerankObjective(explained)(weights);
  console.log(`second stage, start: top-1 ${(start.top1 * 100).toFixed(1)}%, MRR ${start.mrr.toFixed(3)}`);
  const folds = Number(values.folds);
  if (folds > 1) {
    // Cross-validation: the fitted weights judged on the pairs they were not fit on.
    let top1 = 0;
    let baseline = 0;
    for (let fold = 0; fold < folds; fold++) {
      const train = explained.filter((_, i) => i % folds !== fold);
      const test = explained.filter((_, i) => i % folds === fold);
      const fitted = ascend(weights, rerankKnobs, rerankObjective(train), false).weights;
      top1 += rerankObjective(test)(fitted).top1 * test.length;
      baseline += rerankObjective(test)(weights).top1 * test.length;
    }
    console.log(`${folds}-fold cross-validation of the second stage: top-1 ${((top1 / explained.length) * 100).toFixed(1)}% on left-out pairs (${((baseline / explained.length) * 100).toFixed(1)}% with the starting weights)`);
  }
  weights = ascend(weights, rerankKnobs, rerankObjective(explained), true).weights;
}
console.log(JSON.stringify(weights, null, 2));

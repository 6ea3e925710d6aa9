// `npx tsx --conditions=development packages/skills/eval/tune-weights.ts [--rounds 3] [--total 450]`: fits the weights of
// skill search on the dev split by coordinate ascent and prints the best (to be copied into
// src/search/skill-search-weights.ts by hand). For each knob in turn it tries a few values with
// the others fixed (×0.5, ×0.75, ×1.25, ×1.5, and 0) and keeps a change only when it raises the
// objective by more than 0.1 point; it repeats until a round changes nothing. The objective is
// top-1 plus half the MRR, averaged over the corpus as installed and the corpus grown to
// `--total`. gold/test.jsonl (held out) is never read here.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { evaluateRanking, type DocumentIndexWeights } from "@thinktank/search";
import { corpusDir } from "@thinktank/testing";
import { loadSkills } from "../src/load-skills.js";
import { SkillSearchIndex } from "../src/search/skill-search-index.js";
import { defaultSkillSearchWeights, skillSearchFields } from "../src/search/skill-search-weights.js";
import type { Skill } from "../src/skill-types.js";
import { corpusSkillSources } from "./corpus-skill-sources.js";
import { growSkills } from "./grow-skills.js";
import { devGoldFile, readSkillGold } from "./skill-gold.js";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "3" }, total: { type: "string", default: "450" } } });
const corpus = corpusDir(process.env);
const pairs = readSkillGold(devGoldFile).map((pair) => ({ id: pair.id, query: pair.query, accepted: pair.expected }));
const originals = (await loadSkills({ sources: corpusSkillSources(corpus) })).skills;
const growth = fs.mkdtempSync(path.join(os.tmpdir(), "tt-tune-skills-"));
let grown: Skill[];
try {
  grown = (await loadSkills({ sources: [...corpusSkillSources(corpus), ...growSkills(originals, growth, Number(values.total)).sources] })).skills;
} finally {
  fs.rmSync(growth, { recursive: true, force: true });
}

type Knob = { name: string; get: (w: DocumentIndexWeights) => number; set: (w: DocumentIndexWeights, v: number) => DocumentIndexWeights };
const scalar = (name: "k1" | "coverage" | "fullMatch" | "nameMatch" | "synonym"): Knob => ({ name, get: (w) => w[name], set: (w, v) => ({ ...w, [name]: v }) });
const knobs: Knob[] = [
  ...skillSearchFields.map((field): Knob => ({ name: `fields.${field}`, get: (w) => w.fields[field] ?? 0, set: (w, v) => ({ ...w, fields: { ...w.fields, [field]: v } }) })),
  ...skillSearchFields.map((field): Knob => ({ name: `lengthNormalization.${field}`, get: (w) => w.lengthNormalization[field] ?? 0, set: (w, v) => ({ ...w, lengthNormalization: { ...w.lengthNormalization, [field]: Math.min(1, v) } }) })),
  scalar("k1"),
  scalar("coverage"),
  scalar("fullMatch"),
  scalar("nameMatch"),
  scalar("synonym"),
];

function objective(weights: DocumentIndexWeights): number {
  let sum = 0;
  for (const skills of [originals, grown]) {
    const index = new SkillSearchIndex(skills, { weights });
    const quality = evaluateRanking(pairs, (query) => index.search(query, { limit: 10 }).map((hit) => hit.identity));
    sum += quality.top1 + quality.mrr / 2;
  }
  return (sum / 2) * 100;
}

let best = defaultSkillSearchWeights;
let bestScore = objective(best);
console.log(`start: ${bestScore.toFixed(2)}`);
for (let round = 1; round <= Number(values.rounds); round++) {
  let changed = false;
  for (const knob of knobs) {
    const current = knob.get(best);
    for (const value of [current * 0.5, current * 0.75, current * 1.25, current * 1.5, 0, current + 0.1]) {
      const candidate = knob.set(best, Math.round(value * 1000) / 1000);
      const score = objective(candidate);
      if (score > bestScore + 0.1) {
        console.log(`round ${round}: ${knob.name} ${current} → ${knob.get(candidate)}: ${bestScore.toFixed(2)} → ${score.toFixed(2)}`);
        best = candidate;
        bestScore = score;
        changed = true;
      }
    }
  }
  if (!changed) break;
}
console.log(JSON.stringify(best, null, 2));

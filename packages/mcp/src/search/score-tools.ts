import type { QueryConcept, QueryPlan } from "./query-plan.js";
import { inverseDocumentFrequency, type SearchStats } from "./search-stats.js";
import type { RankingWeights } from "./search-types.js";
import { fieldNames } from "./search-types.js";
import { fieldCount, type ServerSegment } from "./server-segment.js";

export interface ScoredTool {
  readonly segment: ServerSegment;
  readonly tool: number;
  readonly score: number;
}

/**
 * BM25F over one server's tools. Per concept a tool keeps its best alternative (the word or one
 * synonym); concept scores add up. The sum is then scaled by the share of concepts the tool
 * matches (a concept met only in passing, say in a parameter description, counts partly), by `serverFactor` (how well the server matches), by how fully the tool's own name was
 * asked for, and down for deprecated tools.
 */
export function scoreSegment(plan: QueryPlan, segment: ServerSegment, stats: SearchStats, weights: RankingWeights, serverFactor: number, out: ScoredTool[]): void {
  const size = segment.tools.length;
  const scores = new Float64Array(size);
  const matched = new Float64Array(size);
  const best = new Float64Array(size);
  const alternativeSum = new Float64Array(size);
  const fieldWeight = fieldNames.map((field) => weights.fields[field]);
  const normalization = fieldNames.map((field) => weights.lengthNormalization[field]);
  const queryTerms = new Map<string, number>();

  for (const concept of plan.concepts) {
    best.fill(0);
    const fullMatch = weights.fullMatch * strongestMatch(concept, stats);
    for (const alternative of concept.alternatives) {
      alternativeSum.fill(0);
      for (const term of alternative.terms) {
        queryTerms.set(term, Math.max(queryTerms.get(term) ?? 0, alternative.weight));
        const postings = segment.postings.get(term);
        if (!postings) continue;
        const idf = inverseDocumentFrequency(stats.toolCount, stats.documentFrequency.get(term) ?? postings.tools.length);
        for (let p = 0; p < postings.tools.length; p++) {
          const tool = postings.tools[p] as number;
          let frequency = 0;
          for (let f = 0; f < fieldCount; f++) {
            const tf = postings.frequencies[p * fieldCount + f] as number;
            if (tf === 0) continue;
            const length = segment.fieldLengths[tool * fieldCount + f] as number;
            const average = stats.averageFieldLengths[f] || 1;
            frequency += ((fieldWeight[f] as number) * tf) / (1 - (normalization[f] as number) + ((normalization[f] as number) * length) / average);
          }
          alternativeSum[tool] = (alternativeSum[tool] as number) + (idf * frequency) / (weights.k1 + frequency);
        }
      }
      for (let tool = 0; tool < size; tool++) {
        const value = (alternativeSum[tool] as number) * alternative.weight;
        if (value > (best[tool] as number)) best[tool] = value;
      }
    }
    for (let tool = 0; tool < size; tool++) {
      if ((best[tool] as number) > 0) {
        scores[tool] = (scores[tool] as number) + (best[tool] as number);
        matched[tool] = (matched[tool] as number) + Math.min(1, (best[tool] as number) / fullMatch);
      }
    }
  }

  const conceptCount = plan.concepts.length;
  for (let tool = 0; tool < size; tool++) {
    const raw = scores[tool] as number;
    if (raw <= 0) continue;
    const coverage = Math.pow((matched[tool] as number) / conceptCount, weights.coverage);
    const nameMatch = nameCoverage(segment.nameTerms[tool] ?? [], queryTerms);
    const deprecated = segment.deprecated[tool] ? weights.deprecated : 1;
    const score = raw * coverage * serverFactor * (1 + weights.nameMatch * nameMatch) * deprecated;
    out.push({ segment, tool, score });
  }
}

/** The most a concept can score: its strongest alternative's summed IDF (terms the index lacks count nothing). */
function strongestMatch(concept: QueryConcept, stats: SearchStats): number {
  let strongest = 0;
  for (const alternative of concept.alternatives) {
    let sum = 0;
    for (const term of alternative.terms) {
      const frequency = stats.documentFrequency.get(term);
      if (frequency) sum += inverseDocumentFrequency(stats.toolCount, frequency);
    }
    strongest = Math.max(strongest, sum * alternative.weight);
  }
  return strongest;
}

/**
 * The share of a tool name's words that the query asked for; a synonym counts at its weight.
 * Every word counts the same: the common verbs ("list", "create") are exactly what tells apart
 * a server's list_workspaces from its create_workspace.
 */
function nameCoverage(nameTerms: readonly string[], queryTerms: ReadonlyMap<string, number>): number {
  let covered = 0;
  for (const term of nameTerms) covered += queryTerms.get(term) ?? 0;
  return nameTerms.length > 0 ? covered / nameTerms.length : 0;
}

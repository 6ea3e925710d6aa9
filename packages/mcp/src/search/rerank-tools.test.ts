import { TextAnalyzer } from "@thinktank/search";
import { describe, expect, it } from "vitest";
import type { CatalogServer } from "../catalog/catalog-types.js";
import { ActionVocabulary } from "./action-vocabulary.js";
import { defaultActionGroups } from "./default-actions.js";
import { defaultRankingWeights } from "./default-ranking-weights.js";
import { intentProfile, rerankFeatures, rerankTools, type RerankContext, type ScoredTool } from "./rerank-tools.js";
import { buildServerSegment } from "./server-segment.js";

const analyzer = new TextAnalyzer();
const vocabulary = new ActionVocabulary(defaultActionGroups, analyzer);
const object = { type: "object", properties: {} };
const boards: CatalogServer = {
  server: "tracker",
  tools: [
    { name: "list_boards", description: "List all boards in the workspace.", inputSchema: object },
    { name: "create_board", description: "Create a new board.", inputSchema: object },
    { name: "get_board", description: "Get one board by id.", inputSchema: object },
    { name: "wiki", description: "Read the wiki.", inputSchema: object },
  ],
};
const segment = buildServerSegment(boards, "x", analyzer, vocabulary);
const candidate = (name: string, score = 1): ScoredTool => ({ segment, document: boards.tools.findIndex((t) => t.name === name), score });
const context = (terms: string[], question: boolean, plural: boolean[] = terms.map(() => false)): RerankContext => ({
  intent: intentProfile({ terms, plural, question }, vocabulary),
  concepts: terms.map((term) => ({ term, alternatives: [{ terms: [term], weight: 1, source: "query" }] })),
  mentions: new Map([["tracker", 0.5]]),
});

describe("intentProfile", () => {
  it("takes an imperative's first verb as the action; reading verbs accept every reading tool", () => {
    const create = intentProfile({ terms: ["creat", "board"], plural: [false, false], question: false }, vocabulary);
    expect(create.open).toBe(false);
    expect(create.explicit).toEqual(create.accepted);
    const show = intentProfile({ terms: ["show", "board"], plural: [false, true], question: false }, vocabulary);
    expect(show.accepted).toEqual(expect.arrayContaining(vocabulary.readingGroups()));
    expect(show.number).toBe(1);
  });

  it("reads a question as a request to be told, and a query without a leading verb as saying nothing about the action", () => {
    expect(intentProfile({ terms: ["board", "creat"], plural: [true, false], question: true }, vocabulary)).toMatchObject({ explicit: [], accepted: vocabulary.readingGroups(), open: false });
    expect(intentProfile({ terms: ["histogram", "time"], plural: [false, false], question: false }, vocabulary)).toMatchObject({ explicit: [], open: true });
  });
});

describe("rerankFeatures", () => {
  it("sees a create tool contradict a question, and a list tool agree with a plural object", () => {
    const which = context(["board"], true, [true]);
    expect(rerankFeatures(candidate("create_board"), which)).toMatchObject({ actionConflict: 1, actionAgree: 0 });
    expect(rerankFeatures(candidate("list_boards"), which)).toMatchObject({ actionConflict: 0, numberAgree: 1, numberDisagree: 0 });
    expect(rerankFeatures(candidate("get_board"), which)).toMatchObject({ numberAgree: 0, numberDisagree: 1 });
  });

  it("sees the verb asked for, strong-field coverage, the server mention and a one-word name", () => {
    const create = context(["creat", "board"], false);
    expect(rerankFeatures(candidate("create_board"), create)).toMatchObject({ actionAgree: 1, leadCoverage: 1, mention: 0.5, shortName: 0 });
    expect(rerankFeatures(candidate("wiki"), create)).toMatchObject({ actionAgree: 0, actionConflict: 0, leadCoverage: 0, shortName: 1 });
  });
});

describe("rerankTools", () => {
  it("multiplies each score by e^(Σ weight × feature) and re-sorts", () => {
    const which = context(["board"], true, [true]);
    const weights = { ...defaultRankingWeights, rerank: { ...defaultRankingWeights.rerank, actionConflict: -1, numberAgree: 0, numberDisagree: 0, leadCoverage: 0, mention: 0 } };
    const ranked = rerankTools([candidate("create_board", 2), candidate("list_boards", 1)], which, weights);
    expect(ranked.map((r) => boards.tools[r.document]?.name)).toEqual(["list_boards", "create_board"]);
    expect(ranked[1]?.score).toBeCloseTo(2 * Math.exp(-1));
  });

  it("keeps the keyword order when every weight is zero", () => {
    const zero = { ...defaultRankingWeights, rerank: Object.fromEntries(Object.keys(defaultRankingWeights.rerank).map((k) => [k, 0])) as typeof defaultRankingWeights.rerank };
    const ranked = rerankTools([candidate("create_board", 2), candidate("list_boards", 1)], context(["board"], true, [true]), zero);
    expect(ranked.map((r) => r.score)).toEqual([2, 1]);
  });
});

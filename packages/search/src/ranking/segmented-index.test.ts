import { describe, expect, it } from "vitest";
import type { QueryPlan } from "../query/query-plan.js";
import { buildSegment } from "./document-segment.js";
import { SegmentedIndex } from "./segmented-index.js";

const weights = { fields: { name: 2, text: 1 }, lengthNormalization: { name: 0, text: 0.5 }, k1: 1.2, coverage: 0, fullMatch: 0.2, nameMatch: 0, deprecated: 1 };
const segment = (key: string, documents: [id: string, name: string[], text: string[]][]) =>
  buildSegment(key, key, 2, documents.map(([id, name, text]) => ({ id, fields: [name, text], nameTerms: name })));
const plan = (...terms: string[]): QueryPlan => ({ concepts: terms.map((term) => ({ term, alternatives: [{ terms: [term], weight: 1, source: "query" as const }] })), intent: { terms, plural: [], question: false } });

describe("SegmentedIndex", () => {
  it("keeps the statistics exact as segments are replaced and removed", () => {
    const index = new SegmentedIndex({ fields: ["name", "text"], weights });
    index.put(segment("a", [["one", ["report"], ["week"]], ["two", ["chart"], ["report", "week"]]]));
    index.put(segment("b", [["three", ["report"], []]]));
    expect(index.stats()).toMatchObject({ documentCount: 3, segmentCount: 2 });
    expect(index.stats().documentFrequency.get("report")).toBe(3);
    const replaced = index.put(segment("a", [["one", ["chart"], []]]));
    expect(replaced?.ids).toEqual(["one", "two"]);
    expect(index.stats().documentFrequency.get("report")).toBe(1);
    expect(index.has("week")).toBe(false);
    expect(index.remove("b")?.key).toBe("b");
    expect(index.stats()).toMatchObject({ documentCount: 1, segmentCount: 1 });
    expect(index.has("report")).toBe(false);
  });

  it("scores all segments or only some, with a factor per segment; ties by segment key, then id", () => {
    const index = new SegmentedIndex({ fields: ["name", "text"], weights });
    index.put(segment("b", [["x", ["report"], []]]));
    index.put(segment("a", [["y", ["report"], []], ["x", ["report"], []]]));
    const ids = (hits: ReturnType<typeof index.top>) => hits.map((hit) => `${hit.segment.key}/${hit.segment.ids[hit.document]}`);
    expect(ids(index.top(plan("report"), { depth: 5 }))).toEqual(["a/x", "a/y", "b/x"]);
    expect(ids(index.top(plan("report"), { depth: 5, within: [index.segment("b")!] }))).toEqual(["b/x"]);
    expect(ids(index.top(plan("report"), { depth: 2, segmentFactor: (s) => (s.key === "b" ? 2 : 1) }))).toEqual(["b/x", "a/x"]);
    expect(index.top(plan(), { depth: 5 })).toEqual([]);
  });
});

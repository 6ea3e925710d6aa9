import { describe, expect, it } from "vitest";
import { parseGoldSet } from "./gold-set.js";
import { evaluateToolRanking } from "./evaluate-tool-ranking.js";

const line = (value: unknown) => JSON.stringify(value);
const pair = { id: "a", split: "dev", query: "send an email", expected: [{ server: "gmail", tool: "send_email" }] };

describe("parseGoldSet", () => {
  it("reads JSON lines, skipping blanks and // comments, defaulting the kind", () => {
    const pairs = parseGoldSet(`// comment\n${line(pair)}\n\n${line({ ...pair, id: "b", split: "test", kind: "builtin" })}\n`);
    expect(pairs).toEqual([
      { ...pair, kind: "catalog" },
      { ...pair, id: "b", split: "test", kind: "builtin" },
    ]);
  });

  it("names the line of every problem", () => {
    expect(() => parseGoldSet(`${line(pair)}\n{oops`, "gold.jsonl")).toThrowError(/^gold\.jsonl:2: not valid JSON/);
    expect(() => parseGoldSet(line({ ...pair, split: "train" }))).toThrowError(`gold set:1: 'split' must be "dev" or "test"; got "train"`);
    expect(() => parseGoldSet(line({ ...pair, expected: [] }))).toThrowError(/'expected' must be a non-empty list/);
    expect(() => parseGoldSet(line({ ...pair, expected: [{ server: "gmail" }] }))).toThrowError(/needs 'server' and 'tool'/);
    expect(() => parseGoldSet(line({ ...pair, query: " " }))).toThrowError(/'query' must be a non-empty string/);
    expect(() => parseGoldSet(`${line(pair)}\n${line(pair)}`)).toThrowError("gold set:2: duplicate id 'a'");
  });
});

describe("evaluateToolRanking", () => {
  it("computes top-k accuracy and MRR, accepting any listed tool", () => {
    const pairs = parseGoldSet(
      [
        line(pair),
        line({ ...pair, id: "b", query: "second", expected: [{ server: "x", tool: "one" }, { server: "y", tool: "two" }] }),
        line({ ...pair, id: "c", query: "third", expected: [{ server: "z", tool: "never" }] }),
      ].join("\n"),
    );
    const answers: Record<string, { server: string; name: string }[]> = {
      "send an email": [{ server: "gmail", name: "send_email" }],
      second: [{ server: "q", name: "q" }, { server: "q", name: "r" }, { server: "y", name: "two" }],
      third: [{ server: "q", name: "q" }],
    };
    const quality = evaluateToolRanking(pairs, (query) => answers[query] ?? []);
    expect(quality).toMatchObject({ pairs: 3, top1: 1 / 3, top3: 2 / 3, top5: 2 / 3 });
    expect(quality.mrr).toBeCloseTo((1 + 1 / 3) / 3);
    expect(quality.misses).toEqual([
      { id: "b", query: "second", expected: "x/one | y/two", rank: 3, got: ["q/q", "q/r", "y/two"] },
      { id: "c", query: "third", expected: "z/never", rank: undefined, got: ["q/q"] },
    ]);
  });
});

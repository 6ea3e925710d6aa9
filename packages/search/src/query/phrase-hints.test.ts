import { describe, expect, it } from "vitest";
import { PhraseHintTable } from "./phrase-hints.js";
import { TextAnalyzer } from "../text/text-analyzer.js";

const analyzer = new TextAnalyzer();
const table = new PhraseHintTable(
  [
    { phrase: "how long ago", hints: ["relative time"] },
    { phrase: "how long|how much time", hints: ["duration"] },
    { phrase: "who am i", hints: ["current user", "whoami"] },
  ],
  analyzer,
);

describe("PhraseHintTable", () => {
  it("finds a phrase on word boundaries, any case, and gives its hints as analyzed terms", () => {
    expect(table.find("Who am I on linear?")).toEqual([{ start: 0, end: 8, label: "who am i", hints: [["current", "user"], ["whoami"]] }]);
    expect(table.find("whoami")).toEqual([]);
  });

  it("matches every variant and skips a shorter phrase inside a longer match", () => {
    expect(table.find("how long ago was it").map((m) => m.label)).toEqual(["how long ago"]);
    expect(table.find("how much time does it take").map((m) => m.label)).toEqual(["how long"]);
  });

  it("treats a curly apostrophe like a straight one and tolerates extra spaces", () => {
    const curly = new PhraseHintTable([{ phrase: "what's new", hints: ["changelog"] }], analyzer);
    expect(curly.find("so, what’s   new?")).toHaveLength(1);
  });
});

import { describe, expect, it } from "vitest";
import { looksPlural } from "./looks-plural.js";

describe("looksPlural", () => {
  it("tells plural nouns from words that merely end in s", () => {
    for (const word of ["tables", "policies", "dashboards", "datasets"]) expect(looksPlural(word), word).toBe(true);
    for (const word of ["status", "analysis", "process", "analytics", "news", "has", "bus"]) expect(looksPlural(word), word).toBe(false);
  });
});

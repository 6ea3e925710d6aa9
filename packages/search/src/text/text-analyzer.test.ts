import { describe, expect, it } from "vitest";
import { TextAnalyzer } from "./text-analyzer.js";

describe("TextAnalyzer", () => {
  const analyzer = new TextAnalyzer();

  it("drops stop words and one-letter words, and stems what remains", () => {
    expect(analyzer.terms("Please list all of my GitHub issues")).toEqual(["list", "all", "git", "hub", "github", "issu"]);
  });

  it("gives singular and plural, and verb forms, the same term", () => {
    expect(analyzer.terms("repositories")).toEqual(analyzer.terms("repository"));
    expect(analyzer.terms("deploying deployments")).toEqual(["deploy", "deploy"]);
    expect(analyzer.terms("news")).toEqual(["news"]);
  });

  it("leaves words with digits unstemmed", () => {
    expect(analyzer.terms("o200k")).toEqual(["200", "o200k"]);
  });

  it("takes its own stop words and minimum length", () => {
    const custom = new TextAnalyzer({ stopWords: new Set(["issues"]), minLength: 1 });
    expect(custom.terms("a list of issues")).toEqual(["a", "list", "of"]);
  });
});

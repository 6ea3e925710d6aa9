import path from "node:path";
import { corpusLocation, needs } from "@thinktank/testing";
import { describe, expect, it } from "vitest";
import { readCatalog } from "../catalog/read-catalog.js";
import { countTokens } from "./count-tokens.js";
import { catalogDefinitionTokens, toolDefinitionTokens } from "./tool-definition-tokens.js";

const tool = {
  name: "get_weather",
  description: "Get the weather for a city.",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  outputSchema: { type: "object", properties: { celsius: { type: "number" } } },
};

describe("countTokens", () => {
  it("counts o200k tokens and nothing for an empty text", () => {
    expect(countTokens("")).toBe(0);
    expect(countTokens("hello world")).toBe(2);
  });

  it("counts special-token spellings as ordinary text instead of throwing", () => {
    expect(countTokens("a <|endoftext|> b")).toBeGreaterThan(3);
  });
});

describe("toolDefinitionTokens", () => {
  it("adds name, description and input schema counted apart (the corpus README's measure)", () => {
    const expected = countTokens(tool.name) + countTokens(tool.description) + countTokens(JSON.stringify(tool.inputSchema));
    expect(toolDefinitionTokens(tool)).toBe(expected);
  });

  it("counts the JSON a model API receives, with the output schema on request", () => {
    const json = toolDefinitionTokens(tool, { format: "json" });
    expect(json).toBe(countTokens(JSON.stringify({ name: tool.name, description: tool.description, input_schema: tool.inputSchema })));
    expect(toolDefinitionTokens(tool, { format: "json", includeOutputSchema: true })).toBeGreaterThan(json);
    expect(toolDefinitionTokens(tool, { includeOutputSchema: true })).toBe(toolDefinitionTokens(tool) + countTokens(JSON.stringify(tool.outputSchema)));
  });
});

describe("catalogDefinitionTokens over the corpus", needs("corpus"), () => {
  const { servers } = readCatalog(path.join(corpusLocation(), "mcp-tools"));
  const count = catalogDefinitionTokens(servers);
  const of = (name: string): number | undefined => count.servers.find((s) => s.server === name)?.tokens;

  it("reproduces the per-server figures the corpus README publishes", () => {
    // Independent figures from the corpus README (gpt-tokenizer, o200k_base, same measure).
    expect(of("github")).toBe(3313);
    expect(of("ms-365")).toBe(240778);
    expect(of("slack")).toBe(607);
    expect(count.tools).toBe(2136);
  });

  it("totals within a few tokens of the README (figma's description was edited after counting)", () => {
    expect(Math.abs(count.tokens - 764022)).toBeLessThanOrEqual(5);
  });
});

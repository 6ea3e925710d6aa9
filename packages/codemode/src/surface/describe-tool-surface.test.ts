import path from "node:path";
import { modelToolNames, readCatalog, type CatalogServer } from "@thinktank/mcp";
import { corpusDir, needs } from "@thinktank/testing";
import { describe, expect, it } from "vitest";
import { describeToolSurface } from "./describe-tool-surface.js";

const settings = { defaultTimeoutSeconds: 30, maxTimeoutSeconds: 300, defaultLimit: 10, maxLimit: 50, maxStdoutBytes: 20000, autoThresholdTokens: 4000 };

/** `count` tools spread over servers of 25, each with a small schema. */
function syntheticCatalog(count: number): CatalogServer[] {
  const servers: CatalogServer[] = [];
  for (let start = 0; start < count; start += 25) {
    const tools = Array.from({ length: Math.min(25, count - start) }, (_, index) => ({
      name: `action_${start + index}`,
      description: `Performs action number ${start + index} on the records of this service.`,
      inputSchema: { type: "object", properties: { id: { type: "string", description: "The record id" }, limit: { type: "integer" } }, required: ["id"] },
    }));
    servers.push({ server: `service-${start / 25}`, tools });
  }
  return servers;
}

describe("describeToolSurface", () => {
  it("direct mode sends every tool under its model-facing name", () => {
    const surface = describeToolSurface([{ server: "sales:crm", tools: [{ name: "find.contact", description: "Find a contact", inputSchema: { type: "object" } }] }], { ...settings, mode: "direct" });
    expect(surface).toMatchObject({ mode: "direct", reason: "code_execution.mode is direct", toolCount: 1, sections: [] });
    expect(surface.definitions).toEqual([{ name: "sales_crm__find_contact", description: "Find a contact", input_schema: { type: "object" } }]);
    expect(surface.tokens.total).toBe(surface.costs.direct);
  });

  it("code mode sends the three tools and the code-execution section, under 1,000 tokens, whatever the catalog", () => {
    const totals = [10, 100, 1000, 10_000].map((count) => describeToolSurface(syntheticCatalog(count), { ...settings, mode: "code" }));
    for (const surface of totals) {
      expect(surface.definitions.map((definition) => definition.name)).toEqual(["list_servers", "search_tools", "execute_code"]);
      expect(surface.sections.map((section) => section.id)).toEqual(["code_execution"]);
      expect(surface.tokens.total).toBeLessThanOrEqual(1000);
    }
    expect(new Set(totals.map((surface) => surface.tokens.total)).size).toBe(1);
    expect(totals[3]?.toolCount).toBe(10_000);
  });

  it("auto switches to code mode above auto_threshold_tokens", () => {
    const small = describeToolSurface(syntheticCatalog(10), { ...settings, mode: "auto" });
    expect(small.mode).toBe("direct");
    expect(small.reason).toMatch(/^auto: 10 MCP tool definitions cost \d+ tokens, not more than auto_threshold_tokens \(4000\)$/);
    const large = describeToolSurface(syntheticCatalog(200), { ...settings, mode: "auto" });
    expect(large.mode).toBe("code");
    expect(large.costs.direct).toBeGreaterThan(4000);
    expect(describeToolSurface(syntheticCatalog(10), { ...settings, mode: "auto", autoThresholdTokens: 0 }).mode).toBe("code");
  });

  it("mentions the configured limits in the definitions", () => {
    const surface = describeToolSurface([], { ...settings, mode: "code", defaultTimeoutSeconds: 12, maxTimeoutSeconds: 34, maxLimit: 7 });
    const execute = surface.definitions.find((definition) => definition.name === "execute_code");
    expect(JSON.stringify(execute)).toContain("Default 12, at most 34");
    const search = surface.definitions.find((definition) => definition.name === "search_tools");
    expect(search?.input_schema).toMatchObject({ properties: { limit: { maximum: 7 } } });
    expect(surface.sections[0]?.text).toContain("20000 bytes");
  });
});

describe("describeToolSurface over the corpus catalog", needs("corpus"), () => {
  it("code mode costs at least 99% fewer tokens than direct mode", () => {
    const { servers } = readCatalog(path.join(corpusDir(), "mcp-tools"));
    const surface = describeToolSurface(servers, { ...settings, mode: "auto" });
    // 2,136 tools listed; a server that lists one name twice counts once.
    expect(surface.toolCount).toBe(modelToolNames(servers).names.size);
    expect(surface.toolCount).toBeGreaterThan(2100);
    expect(surface.mode).toBe("code");
    expect(surface.costs.code).toBeLessThanOrEqual(1000);
    expect(surface.costs.code / surface.costs.direct).toBeLessThan(0.01);
  });
});

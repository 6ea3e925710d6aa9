import path from "node:path";
import { fileURLToPath } from "node:url";
import { corpusAvailable, corpusDir } from "@thinktank/testing";
import { describe, expect, it } from "vitest";
import { readCatalog } from "../catalog/read-catalog.js";
import { evaluateRanking } from "./evaluate-ranking.js";
import { readGoldSet } from "./gold-set.js";
import { PlainBm25Index } from "./plain-bm25-index.js";
import { ToolSearchIndex } from "./tool-search-index.js";

const evalDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../eval");

// The gold set of packages/mcp/eval over the real corpus catalog: the ranking must keep beating
// plain BM25 and must not slip below the quality it was released with (see `npm run eval:tools`).
describe.skipIf(!corpusAvailable())("search_tools quality on the gold set", () => {
  const servers = [...readCatalog(path.join(corpusDir(), "mcp-tools")).servers, ...readCatalog(path.join(evalDir, "extra-catalog")).servers];
  const pairs = readGoldSet(path.join(evalDir, "gold-set.jsonl"));
  const index = new ToolSearchIndex({ maxLimit: 10 });
  index.syncServers(servers);
  const plain = new PlainBm25Index(servers);

  it("is a gold set of the promised size and spread, naming only tools that exist", () => {
    const tools = new Set(servers.flatMap((server) => server.tools.map((tool) => `${server.server}/${tool.name}`)));
    expect(pairs.filter((p) => p.kind === "catalog").length).toBeGreaterThanOrEqual(120);
    expect(pairs.filter((p) => p.kind === "builtin").length).toBeGreaterThanOrEqual(10);
    expect(new Set(pairs.flatMap((p) => p.expected.map((e) => e.server))).size).toBeGreaterThanOrEqual(60);
    for (const p of pairs) for (const e of p.expected) expect(tools.has(`${e.server}/${e.tool}`), `${p.id}: ${e.server}/${e.tool}`).toBe(true);
  });

  for (const split of ["dev", "test"] as const) {
    it(`beats plain BM25 and holds its floor on the ${split} split`, () => {
      const subset = pairs.filter((p) => p.split === split);
      const ours = evaluateRanking(subset, (query) => index.search(query, { limit: 10 }));
      const baseline = evaluateRanking(subset, (query) => plain.search(query, 10));
      expect(ours.top1).toBeGreaterThan(baseline.top1 + 0.08);
      expect(ours.mrr).toBeGreaterThan(baseline.mrr);
      expect(ours.top1).toBeGreaterThanOrEqual(0.82);
      expect(ours.top3).toBeGreaterThanOrEqual(0.9);
    });
  }
});

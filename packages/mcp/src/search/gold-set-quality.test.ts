import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { corpusLocation, needs } from "@thinktank/testing";
import { describe, expect, it } from "vitest";
import { readCatalog } from "../catalog/read-catalog.js";
import { evaluateToolRanking } from "./evaluate-tool-ranking.js";
import { readGoldSet, type GoldPair } from "./gold-set.js";
import { PlainToolBm25Index } from "./plain-tool-bm25-index.js";
import { ToolSearchIndex } from "./tool-search-index.js";

const evalDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../eval");
const heldOutFile = path.join(evalDir, "gold", "test-v2.jsonl");
/** The held-out set as committed before the second round of tuning ("fresh held-out set v2"). */
const heldOutSha256 = "6ce108447aaed9f27325d616ac843a7b8d1d41ae7ebb2ae4ea048dd69cf8cefa";

// The gold sets of packages/mcp/eval over the real corpus catalog (see eval/README.md): the ranking
// must keep beating plain BM25 and must not slip below the quality measured when it was released
// (`npm run eval:tools`: dev 90.9%, old held-out 92.6%, dev v2 79.3%, held-out v2 71.2% top-1).
describe("search_tools quality on the gold sets", needs("corpus"), () => {
  const servers = [...readCatalog(path.join(corpusLocation(), "mcp-tools")).servers, ...readCatalog(path.join(evalDir, "extra-catalog")).servers];
  const first = readGoldSet(path.join(evalDir, "gold-set.jsonl"));
  const devV2 = readGoldSet(path.join(evalDir, "gold", "dev-v2.jsonl"));
  const heldOut = readGoldSet(heldOutFile);
  const index = new ToolSearchIndex({ maxLimit: 10 });
  index.syncServers(servers);
  const plain = new PlainToolBm25Index(servers);

  it("are gold sets of the promised size and spread, with unique ids, naming only tools that exist", () => {
    const tools = new Set(servers.flatMap((server) => server.tools.map((tool) => `${server.server}/${tool.name}`)));
    const all = [...first, ...devV2, ...heldOut];
    expect(first.filter((p) => p.kind === "catalog").length).toBeGreaterThanOrEqual(120);
    expect(all.filter((p) => p.kind === "builtin").length).toBeGreaterThanOrEqual(10);
    expect(heldOut.length).toBeGreaterThanOrEqual(150);
    expect(new Set(heldOut.flatMap((p) => p.expected.map((e) => e.server))).size).toBeGreaterThanOrEqual(60);
    expect(new Set(all.map((p) => p.id)).size).toBe(all.length);
    for (const p of all) for (const e of p.expected) expect(tools.has(`${e.server}/${e.tool}`), `${p.id}: ${e.server}/${e.tool}`).toBe(true);
  });

  it("keeps the held-out set exactly as it was frozen", () => {
    expect(createHash("sha256").update(fs.readFileSync(heldOutFile)).digest("hex")).toBe(heldOutSha256);
    expect(heldOut.every((p) => p.split === "test")).toBe(true);
  });

  const floors: { name: string; pairs: () => readonly GoldPair[]; top1: number; top3: number; margin: number }[] = [
    { name: "dev split (tuned on)", pairs: () => first.filter((p) => p.split === "dev"), top1: 0.9, top3: 0.96, margin: 0.15 },
    { name: "old held-out split (tuned on since v2)", pairs: () => first.filter((p) => p.split === "test"), top1: 0.91, top3: 0.95, margin: 0.15 },
    { name: "dev v2 (tuned on)", pairs: () => devV2, top1: 0.78, top3: 0.92, margin: 0.1 },
    { name: "held-out v2 (never tuned on)", pairs: () => heldOut, top1: 0.7, top3: 0.89, margin: 0.1 },
  ];
  for (const floor of floors) {
    it(`beats plain BM25 and holds its floor on the ${floor.name}`, () => {
      const subset = floor.pairs();
      const ours = evaluateToolRanking(subset, (query) => index.search(query, { limit: 10 }));
      const baseline = evaluateToolRanking(subset, (query) => plain.search(query, 10));
      expect(ours.top1).toBeGreaterThan(baseline.top1 + floor.margin);
      expect(ours.mrr).toBeGreaterThan(baseline.mrr);
      expect(ours.top1).toBeGreaterThanOrEqual(floor.top1);
      expect(ours.top3).toBeGreaterThanOrEqual(floor.top3);
    });
  }
});

// search_tools: latency over a 10,000-tool catalog grown from the real one (beside a naive
// substring scan over the same tools), index build and incremental re-index times, and ranking
// quality on the gold set (beside plain BM25), all in the same run.
import path from "node:path";
import type { CatalogServer } from "@thinktank/mcp";
import { evaluateToolRanking, PlainToolBm25Index, readGoldSet, ToolSearchIndex, type GoldPair } from "@thinktank/mcp";
import { seededRandom } from "@thinktank/testing";
import { goldSetFile, loadEvalCatalog, testV2File, devV2File } from "../packages/mcp/eval/eval-catalog.js";
import { round, summarize } from "./harness.js";
import type { Benchmark, BenchContext, Measurement } from "./harness.js";

const targetTools = 10_000;

/**
 * Copies of the real servers under new names until there are `targetTools` tools. Each copy's
 * descriptions are perturbed: about one word in eight is dropped or swapped for a word from
 * another tool, so copies are near-duplicates, as mirrored and forked servers are in practice.
 */
export function growCatalog(servers: readonly CatalogServer[], target = targetTools): CatalogServer[] {
  const next = seededRandom(42);
  const vocabulary = servers.flatMap((s) => s.tools.flatMap((t) => (t.description ?? "").split(/\s+/).slice(0, 12))).filter((w) => /^[a-z]{4,}$/.test(w));
  const grown: CatalogServer[] = [...servers];
  let count = servers.reduce((n, s) => n + s.tools.length, 0);
  for (let copy = 1; count < target; copy++) {
    for (const server of servers) {
      if (count >= target) break;
      const tools = server.tools.slice(0, target - count).map((tool) => ({
        ...tool,
        description: (tool.description ?? "")
          .split(/\s+/)
          .flatMap((word) => {
            const roll = next();
            if (roll < 0.06) return [];
            if (roll < 0.125) return [vocabulary[Math.floor(next() * vocabulary.length)] ?? word];
            return [word];
          })
          .join(" "),
      }));
      grown.push({ ...server, server: `${server.server}-mirror-${copy}`, tools });
      count += tools.length;
    }
  }
  return grown;
}

/** The baseline: no index at all, every tool's name and description scanned for every query word. */
function substringScan(tools: readonly { server: string; name: string; text: string }[], query: string, limit: number): { server: string; name: string; hits: number }[] {
  const words = query.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 2);
  const scored = [];
  for (const tool of tools) {
    let hits = 0;
    for (const word of words) if (tool.text.includes(word)) hits++;
    if (hits > 0) scored.push({ server: tool.server, name: tool.name, hits });
  }
  return scored.sort((a, b) => b.hits - a.hits).slice(0, limit);
}

function timeEach(queries: readonly string[], rounds: number, fn: (query: string) => unknown): number[] {
  for (const query of queries) fn(query);
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const query of queries) {
      const start = process.hrtime.bigint();
      fn(query);
      samples.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  }
  return samples;
}

const benchmark: Benchmark = {
  title: "search_tools: latency at 10,000 tools, index build, ranking quality",
  issue: 4,
  async run(context: BenchContext): Promise<Measurement[]> {
    if (!context.corpus) {
      context.log("corpus absent: search benchmarks skipped");
      return [];
    }
    const real = loadEvalCatalog(path.join(context.corpus, "mcp-tools"));
    const pairs = readGoldSet(goldSetFile);
    const queries = pairs.map((p) => p.query);
    const grown = growCatalog(real);
    const toolCount = grown.reduce((n, s) => n + s.tools.length, 0);
    context.log(`grew ${real.length} servers into ${grown.length} (${toolCount} tools)`);

    let start = performance.now();
    const index = new ToolSearchIndex({ maxLimit: 10 });
    index.syncServers(grown);
    const buildMs = performance.now() - start;
    const changed = { ...grown[grown.length - 1]!, tools: grown[grown.length - 1]!.tools.map((t) => ({ ...t, description: `${t.description ?? ""} (updated)` })) };
    start = performance.now();
    index.setServer(changed);
    const updateMs = performance.now() - start;
    // The first search after a change gathers its terms' postings again (they are cached per term).
    start = performance.now();
    index.search(queries[0] ?? "search", { limit: 10 });
    const firstSearchMs = performance.now() - start;

    const search = summarize(timeEach(queries, 3, (q) => index.search(q, { limit: 10 })));
    const scanTools = grown.flatMap((s) => s.tools.map((t) => ({ server: s.server, name: t.name, text: `${t.name} ${t.description ?? ""}`.toLowerCase() })));
    const scan = summarize(timeEach(queries, 1, (q) => substringScan(scanTools, q, 10)));

    const realIndex = new ToolSearchIndex({ maxLimit: 10 });
    realIndex.syncServers(real);
    const plain = new PlainToolBm25Index(real);
    const quality = (subset: readonly GoldPair[]) => ({
      ours: evaluateToolRanking(subset, (q) => realIndex.search(q, { limit: 10 })),
      plain: evaluateToolRanking(subset, (q) => plain.search(q, 10)),
      count: subset.length,
    });
    // The held-out set (never tuned on) and everything the ranking was tuned on (see packages/mcp/eval/README.md).
    const test = quality(readGoldSet(testV2File));
    const dev = quality([...pairs, ...readGoldSet(devV2File)]);
    const pct = (x: number) => round(x * 100, 1);

    return [
      {
        name: `search_tools p95, ${toolCount.toLocaleString("en-US")} tools (${queries.length} gold queries × 3)`,
        value: round(search.p95, 3),
        unit: "ms",
        stats: { p50: round(search.median, 3), max: round(search.max, 2), samples: search.samples },
        baseline: { name: "substring scan p95", value: round(scan.p95, 2), unit: "ms" },
        target: "p95 <= 5 ms",
        pass: search.p95 <= 5,
      },
      {
        name: `index build, ${toolCount.toLocaleString("en-US")} tools`,
        value: Math.round(buildMs),
        unit: "ms",
        stats: { servers: grown.length },
      },
      {
        name: `re-index one changed server (${changed.tools.length} tools)`,
        value: round(updateMs, 2),
        unit: "ms",
        stats: { "first search after": round(firstSearchMs, 2) },
        baseline: { name: "full build", value: Math.round(buildMs), unit: "ms" },
      },
      {
        name: `top-1, held-out gold pairs v2 (${test.count}, never tuned on)`,
        value: pct(test.ours.top1),
        unit: "%",
        stats: { "top-3": pct(test.ours.top3), MRR: round(test.ours.mrr, 3), "plain top-3": pct(test.plain.top3) },
        baseline: { name: "plain BM25", value: pct(test.plain.top1), unit: "%" },
        target: ">= 90%",
        pass: test.ours.top1 >= 0.9,
      },
      {
        name: `top-1, tuning gold pairs (${dev.count}, tuned on)`,
        value: pct(dev.ours.top1),
        unit: "%",
        stats: { "top-3": pct(dev.ours.top3), MRR: round(dev.ours.mrr, 3), "plain top-3": pct(dev.plain.top3) },
        baseline: { name: "plain BM25", value: pct(dev.plain.top1), unit: "%" },
      },
    ];
  },
};

export default benchmark;

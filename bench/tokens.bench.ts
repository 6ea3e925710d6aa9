// Tool-definition tokens in direct mode (every tool definition sent on every request), over the
// whole corpus catalog and over the three reference servers. The code-mode side of the comparison
// (issue 4: <= 1,000 tokens, >= 99% fewer) reuses `catalogDefinitionTokens` from @thinktank/mcp.
import path from "node:path";
import { catalogDefinitionTokens, readCatalog } from "@thinktank/mcp";
import { round } from "./harness.js";
import type { Benchmark, BenchContext, Measurement } from "./harness.js";

const referenceServers = ["everything", "filesystem", "memory"];

const benchmark: Benchmark = {
  title: "Tool-definition tokens, direct mode (o200k_base)",
  issue: 4,
  async run(context: BenchContext): Promise<Measurement[]> {
    if (!context.corpus) {
      context.log("corpus absent: token benchmarks skipped");
      return [];
    }
    const { servers } = readCatalog(path.join(context.corpus, "mcp-tools"));
    const started = performance.now();
    const parts = catalogDefinitionTokens(servers);
    const countMs = performance.now() - started;
    const json = catalogDefinitionTokens(servers, { format: "json", includeOutputSchema: true });
    const reference = catalogDefinitionTokens(servers.filter((s) => referenceServers.includes(s.server)));
    const largest = [...parts.servers].sort((a, b) => b.tokens - a.tokens)[0];
    return [
      {
        name: `direct mode, whole corpus catalog (${parts.servers.length} servers, ${parts.tools.toLocaleString("en-US")} tools)`,
        value: parts.tokens,
        unit: "tokens",
        stats: { "per tool": round(parts.tokens / parts.tools, 1), "counted in ms": Math.round(countMs), largest: `${largest?.server} ${largest?.tokens.toLocaleString("en-US")}` },
        baseline: { name: "as API JSON with output schemas", value: json.tokens, unit: "tokens" },
      },
      {
        name: `direct mode, ${referenceServers.join(" + ")} (${reference.tools} tools)`,
        value: reference.tokens,
        unit: "tokens",
        stats: Object.fromEntries(reference.servers.map((s) => [s.server, s.tokens])),
      },
    ];
  },
};

export default benchmark;

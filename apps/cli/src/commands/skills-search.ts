import { parseArgs } from "node:util";
import { ThinktankError } from "@thinktank/core";
import type { SkillSearchHit } from "@thinktank/skills";
import type { CliIo } from "../cli-command.js";
import { runJsonlBatch } from "./jsonl-batch.js";
import { limitOption } from "./limit-option.js";
import { withSkillsService } from "./skills-service-for.js";
import { usageError } from "./subcommand-group.js";
import { loadCliConfig } from "./cli-config.js";

/**
 * `thinktank skills search QUERY [--limit K] [--json]`: the skills the model may use (public,
 * custom, enabled plugins') that best match a request, as the gateway's /api/skills/search answers.
 * `--batch FILE.jsonl` (or `-`) runs one search per line, `{"query": "...", "limit"?}`, and prints
 * `{"query", "results": [{"identity", "name", "description", "location", "score"}]}` per line, in order.
 */
export async function runSkillsSearch(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { limit: { type: "string" }, batch: { type: "string" }, json: { type: "boolean", default: false } },
  });
  const query = positionals.join(" ").trim();
  if (values.batch === undefined && query === "") throw usageError('say what the task is, e.g. thinktank skills search "prep me for a sales call"');
  if (values.batch !== undefined && positionals.length > 0) throw usageError("give either a QUERY or --batch FILE, not both");
  const limit = values.limit !== undefined ? limitOption(values.limit) : undefined;
  const batch = values.batch;
  return withSkillsService(loadCliConfig(io), async (service) => {
    const search = (text: string, count: number | undefined) => service.search(text, count === undefined ? {} : { limit: count });
    if (batch !== undefined) {
      return runJsonlBatch(batch, io, "skills search", async (record) => {
        if (typeof record.query !== "string" || record.query.trim() === "") throw new ThinktankError("VALIDATION_FAILED", "'query' must be a non-empty string");
        if (record.limit !== undefined && typeof record.limit !== "number") throw new ThinktankError("VALIDATION_FAILED", "'limit' must be a number");
        return { query: record.query, results: await search(record.query, (record.limit as number | undefined) ?? limit) };
      });
    }
    const results = await search(query, limit);
    io.stdout.write(values.json ? `${JSON.stringify({ query, results }, null, 2)}\n` : render(results, query));
    return 0;
  });
}

function render(results: readonly SkillSearchHit[], query: string): string {
  if (results.length === 0) return `no skills match '${query}'\n`;
  const width = Math.max(...results.map((r) => r.identity.length));
  return `${results.map((r, i) => `${String(i + 1).padStart(2)}. ${r.identity.padEnd(width)}  ${r.score.toFixed(3)}\n    ${r.description}\n    ${r.location}`).join("\n")}\n`;
}

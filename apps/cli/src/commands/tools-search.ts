import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { buildCodeApiIndex } from "@thinktank/codegen";
import { ThinktankError } from "@thinktank/core";
import { readCatalog, searchDetails, ToolSearchIndex } from "@thinktank/mcp";
import type { SearchDetail, ToolSearchOptions, ToolSearchResult } from "@thinktank/mcp";
import type { CliIo } from "../cli-command.js";
import { runJsonlBatch } from "./jsonl-batch.js";
import { limitOption } from "./limit-option.js";
import { usageError } from "./subcommand-group.js";
import { loadCliConfig } from "./cli-config.js";

/**
 * `thinktank tools search QUERY`: ranked search over a folder of cached tool lists (the MCP
 * manager's cache, config.mcp.catalog_dir, unless --catalog names another). `--batch FILE.jsonl`
 * (or `-` for stdin) runs one search per line, `{"query": "...", "server"?, "detail"?, "limit"?}`,
 * and prints one JSON result per line; a bad line prints `{"line", "error"}` and the exit code is 1.
 */
export async function runToolsSearch(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      server: { type: "string" },
      detail: { type: "string" },
      limit: { type: "string" },
      catalog: { type: "string" },
      batch: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  const query = positionals.join(" ").trim();
  if (values.batch === undefined && query === "" && values.server === undefined) throw usageError("say what the tool should do, e.g. thinktank tools search \"create a github issue\"");
  if (values.batch !== undefined && positionals.length > 0) throw usageError("give either a QUERY or --batch FILE, not both");
  const defaults: ToolSearchOptions = {
    ...(values.server !== undefined ? { server: values.server } : {}),
    ...(values.detail !== undefined ? { detail: detailOption(values.detail) } : {}),
    ...(values.limit !== undefined ? { limit: limitOption(values.limit) } : {}),
  };

  const config = loadCliConfig(io);
  const catalogDir = values.catalog !== undefined ? path.resolve(io.cwd, values.catalog) : config.mcp.catalog_dir;
  const servers = readCatalogFolder(catalogDir, values.catalog !== undefined);
  // The generator's own names (`createIssue.ts`), as search_tools gives them, not the raw tool name.
  const names = buildCodeApiIndex(servers);
  const index = new ToolSearchIndex({
    defaultLimit: config.search.default_limit,
    maxLimit: config.search.max_limit,
    wrapperPath: (server, tool) => names.find(server, tool)?.wrapperPath ?? `${names.mountPath}/servers/${server}/${tool}.ts`,
  });
  index.syncServers(servers);

  if (values.batch !== undefined) return runBatch(index, values.batch, defaults, io);
  const results = index.search(query, defaults);
  if (values.json) io.stdout.write(`${JSON.stringify({ query, results }, null, 2)}\n`);
  else io.stdout.write(renderResults(results, defaults.detail ?? "name", query));
  return 0;
}

function readCatalogFolder(dir: string, explicit: boolean): ReturnType<typeof readCatalog>["servers"] {
  if (!fs.existsSync(dir)) {
    const hint = explicit ? "" : " (config.mcp.catalog_dir; `thinktank mcp list` fills it from the configured servers, or pass --catalog DIR)";
    throw new ThinktankError("NOT_FOUND", `no tool catalog at ${dir}${hint}`);
  }
  const { servers } = readCatalog(dir);
  if (servers.length === 0) throw new ThinktankError("NOT_FOUND", `no cached tool lists in ${dir}: expected one {"server", "tools"} JSON file per server`);
  return servers;
}

function runBatch(index: ToolSearchIndex, file: string, defaults: ToolSearchOptions, io: CliIo): Promise<number> {
  return runJsonlBatch(file, io, "tools search", (record) => {
    const request = batchRequest(record);
    return { query: request.query, results: index.search(request.query, { ...defaults, ...request.options }) };
  });
}

/** One batch line: `query` required; `server`, `detail`, `limit` optional; other keys (an id, expected answers) ignored. */
function batchRequest(record: Readonly<Record<string, unknown>>): { query: string; options: ToolSearchOptions } {
  if (typeof record.query !== "string" || record.query.trim() === "") throw new ThinktankError("VALIDATION_FAILED", "'query' must be a non-empty string");
  if (record.server !== undefined && typeof record.server !== "string") throw new ThinktankError("VALIDATION_FAILED", "'server' must be a string");
  if (record.detail !== undefined && typeof record.detail !== "string") throw new ThinktankError("VALIDATION_FAILED", "'detail' must be a string");
  if (record.limit !== undefined && typeof record.limit !== "number") throw new ThinktankError("VALIDATION_FAILED", "'limit' must be a number");
  return {
    query: record.query,
    options: {
      ...(record.server !== undefined ? { server: record.server as string } : {}),
      ...(record.detail !== undefined ? { detail: record.detail as SearchDetail } : {}),
      ...(record.limit !== undefined ? { limit: record.limit as number } : {}),
    },
  };
}

function detailOption(value: string): SearchDetail {
  if (!(searchDetails as readonly string[]).includes(value)) throw usageError(`--detail must be one of ${searchDetails.join(", ")}; got '${value}'`);
  return value as SearchDetail;
}

function renderResults(results: readonly ToolSearchResult[], detail: SearchDetail, query: string): string {
  if (results.length === 0) return `no tools match '${query}'\n`;
  const width = Math.max(...results.map((r) => `${r.server}/${r.name}`.length));
  const lines: string[] = [];
  results.forEach((result, i) => {
    lines.push(`${String(i + 1).padStart(2)}. ${`${result.server}/${result.name}`.padEnd(width)}  ${result.score.toFixed(3)}`);
    if (detail === "name") return;
    if (result.description) lines.push(`    ${detail === "full" ? result.description.replace(/\n/g, "\n    ") : result.description}`);
    if (detail === "full") {
      if (result.wrapperPath) lines.push(`    wrapper: ${result.wrapperPath}`);
      lines.push(`    input: ${JSON.stringify(result.inputSchema)}`);
      if (result.outputSchema) lines.push(`    output: ${JSON.stringify(result.outputSchema)}`);
    }
  });
  return `${lines.join("\n")}\n`;
}

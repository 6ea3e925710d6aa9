import path from "node:path";
import { parseArgs } from "node:util";
import { generateCodeApi } from "@thinktank/codegen";
import type { CodeApiLanguage, CodegenServer, GenerateCodeApiResult } from "@thinktank/codegen";
import { ThinktankError } from "@thinktank/core";
import { readCatalog } from "@thinktank/mcp";
import type { CliIo } from "../cli-command.js";
import { usageError } from "./subcommand-group.js";
import { connectProgressPrinter, openMcpContext } from "./mcp-context.js";
import { loadCliConfig } from "./cli-config.js";

/**
 * `thinktank mcp generate [--server S] [--clean] [--output DIR] [--catalog DIR] [--cached]
 * [--language typescript|python] [--json]`: writes the code API (typed wrappers per tool,
 * docs/code-api.md) for the configured servers into config.code_execution.code_api_dir or
 * `--output`. Tool lists come from the live servers (the disk cache for one that is down, or for
 * all with `--cached`), or from a catalog folder with `--catalog`. Only servers whose tool list
 * changed are rewritten; `--server S` rewrites S even when unchanged; `--clean` starts over.
 */
export async function runMcpGenerate(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      server: { type: "string" },
      clean: { type: "boolean", default: false },
      output: { type: "string" },
      catalog: { type: "string" },
      cached: { type: "boolean", default: false },
      language: { type: "string", multiple: true },
      json: { type: "boolean", default: false },
    },
    allowPositionals: false,
  });
  const languages = parseLanguages(values.language);
  const { servers, skipped, outDir } = values.catalog !== undefined ? fromCatalog(values.catalog, values.output, io) : await fromConfiguredServers(values, io);
  if (values.server !== undefined && !servers.some((s) => s.server === values.server)) {
    throw new ThinktankError("MCP_SERVER_NOT_FOUND", `no tool list for MCP server '${values.server}' (known: ${servers.map((s) => s.server).join(", ") || "none"})`, {
      details: { server: values.server },
    });
  }

  const progress = generateProgressPrinter(io);
  const result = await generateCodeApi({
    servers,
    outDir,
    clean: values.clean,
    ...(languages ? { languages } : {}),
    // With --server only that server is rewritten; the others stay as they are, even without a tool list now.
    ...(values.server !== undefined ? { force: [values.server], prune: false } : {}),
    onProgress: progress.onProgress,
  });
  progress.finish();
  if (values.json) io.stdout.write(`${JSON.stringify(summary(result, outDir, skipped), null, 2)}\n`);
  else io.stdout.write(report(result, outDir, skipped));
  return 0;
}

function parseLanguages(values: string[] | undefined): CodeApiLanguage[] | undefined {
  if (!values) return undefined;
  const languages = values.flatMap((value) => value.split(",")).map((value) => value.trim());
  for (const language of languages) {
    if (language !== "typescript" && language !== "python") {
      throw usageError(`--language must be typescript or python, got '${language}'`);
    }
  }
  return languages as CodeApiLanguage[];
}

function fromCatalog(catalog: string, output: string | undefined, io: CliIo): { servers: CodegenServer[]; skipped: string[]; outDir: string } {
  const dir = path.resolve(io.cwd, catalog);
  const { servers } = readCatalog(dir);
  if (servers.length === 0) throw new ThinktankError("NOT_FOUND", `no cached tool lists in ${dir}`, { details: { catalog: dir } });
  const outDir = output !== undefined ? path.resolve(io.cwd, output) : loadCliConfig(io).code_execution.code_api_dir;
  return { servers, skipped: [], outDir };
}

async function fromConfiguredServers(values: { server?: string; output?: string; cached?: boolean }, io: CliIo): Promise<{ servers: CodegenServer[]; skipped: string[]; outDir: string }> {
  const context = await openMcpContext(io);
  try {
    const names = context.manager.serverNames();
    if (values.server !== undefined && !names.includes(values.server)) {
      throw new ThinktankError("MCP_SERVER_NOT_FOUND", `MCP server '${values.server}' is not configured (or is disabled) in ${context.config.extensions_config}`, {
        details: { server: values.server },
      });
    }
    if (!values.cached) {
      const connecting = values.server !== undefined ? [values.server] : names;
      const progress = connectProgressPrinter(io);
      progress.start(connecting.length);
      await context.manager.connectAll({ servers: connecting, onProgress: progress.onProgress });
      progress.finish();
    }
    const servers: CodegenServer[] = [];
    const skipped: string[] = [];
    for (const name of names) {
      const tools = context.manager.knownTools(name);
      if (tools) servers.push({ server: name, tools });
      else skipped.push(`${name}: ${context.manager.statusOf(name).reason ?? "no tool list"}`);
    }
    const outDir = values.output !== undefined ? path.resolve(io.cwd, values.output) : context.config.code_execution.code_api_dir;
    return { servers, skipped, outDir };
  } finally {
    await context.close();
  }
}

/** A redrawn progress line while servers are generated, on a terminal only. */
function generateProgressPrinter(io: CliIo): { onProgress: (event: { server: string; action: string; done: number; total: number }) => void; finish: () => void } {
  if (!io.stderr.isTTY) return { onProgress: () => {}, finish: () => {} };
  let drawn = false;
  return {
    onProgress(event) {
      io.stderr.write(`\r\x1b[2Kgenerating code API ${event.done}/${event.total}: ${event.server} ${event.action}`);
      drawn = true;
    },
    finish() {
      if (drawn) io.stderr.write("\r\x1b[2K");
    },
  };
}

function summary(result: GenerateCodeApiResult, outDir: string, skipped: readonly string[]) {
  return {
    outDir,
    servers: result.index.servers.length,
    tools: result.index.servers.reduce((n, s) => n + s.tools.length, 0),
    generated: result.generated,
    unchanged: result.unchanged,
    removed: result.removed,
    skipped,
    warnings: result.warnings,
    filesWritten: result.filesWritten,
    durationMs: Math.round(result.durationMs),
  };
}

function report(result: GenerateCodeApiResult, outDir: string, skipped: readonly string[]): string {
  const s = summary(result, outDir, skipped);
  const lines = [
    `code API in ${outDir}: ${s.servers} server(s), ${s.tools} tool(s); ${s.generated.length} generated, ${s.unchanged.length} unchanged, ${s.removed.length} removed (${s.filesWritten} files written in ${s.durationMs} ms)`,
  ];
  for (const line of skipped) lines.push(`skipped ${line}`);
  for (const warning of result.warnings) lines.push(`warning: ${warning.server}.${warning.tool}: ${warning.message}`);
  return `${lines.join("\n")}\n`;
}

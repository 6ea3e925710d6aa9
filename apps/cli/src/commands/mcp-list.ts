import { parseArgs } from "node:util";
import { ThinktankError } from "@thinktank/core";
import { liveServerState, mcpStatusDir, readMcpStatus } from "@thinktank/mcp";
import type { CatalogTool, McpStatusReport, ServerStatus } from "@thinktank/mcp";
import type { CliIo } from "../cli-command.js";
import { connectProgressPrinter, openMcpContext } from "./mcp-context.js";
import type { McpCliContext } from "./mcp-context.js";

/** A row of `mcp list`: a managed server's status (`timed_out` when it never answered), or a disabled entry. */
type ListedServer = Omit<ServerStatus, "state"> & { readonly state: ServerStatus["state"] | "timed_out" | "disabled" | "unknown" };

/** How long past mcp.connect_timeout_ms `mcp list` waits at most (a tools/list that never ends, a slow spawn). */
const listMarginMs = 500;

/**
 * `thinktank mcp list [--server S] [--json] [--cached] [--probe]`: every configured server with
 * its transport, state and tool count. While an agent server runs on this data folder, the states
 * are the ones it records (the same as GET /api/mcp/servers shows the operator); else, or with
 * `--probe`, it tries each server once from here, all at the same time, and answers within
 * mcp.connect_timeout_ms (plus a small margin) whatever they do; `--cached` reads the disk cache
 * instead. With `--server`, that server's tools.
 */
export async function runMcpList(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { server: { type: "string" }, json: { type: "boolean", default: false }, cached: { type: "boolean", default: false }, probe: { type: "boolean", default: false } },
    allowPositionals: false,
  });
  const context = await openMcpContext(io);
  try {
    if (values.server !== undefined) return await listOneServer(context, values.server, values, io);
    // The running agent's own states, when there is one: what it sees is what matters.
    const report = values.cached || values.probe ? undefined : await readMcpStatus(mcpStatusDir(context.config));
    if (report && report.running.length > 0) return printRows(agentRows(context, report), values, context, io, agentNote(report));
    const progress = connectProgressPrinter(io);
    const deadlineMs = context.config.mcp.connect_timeout_ms + listMarginMs;
    if (!values.cached) {
      const total = context.manager.serverNames().length;
      progress.start(total);
      // One attempt each, all at once: a retry loop would multiply the wait by the retries.
      await context.manager.connectAll({ once: true, concurrency: Math.max(1, total), deadlineMs, onProgress: progress.onProgress });
      progress.finish();
    }
    const listed = context.manager.status().map((status) => listedRow(status, values.cached ? undefined : deadlineMs));
    return printRows([...listed, ...context.disabled.map((name) => disabledRow(name, context))], values, context, io);
  } finally {
    await context.close();
  }
}

function printRows(rows: ListedServer[], values: { json?: boolean }, context: McpCliContext, io: CliIo, note?: string): number {
  rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (values.json) io.stdout.write(`${JSON.stringify({ ...(note ? { source: "agent", note } : { source: "probe" }), servers: rows }, null, 2)}\n`);
  else io.stdout.write(rows.length === 0 ? `no MCP servers configured (${context.config.extensions_config})\n` : `${serverTable(rows)}${note ? `(${note})\n` : ""}`);
  return 0;
}

/** Every server as the running agents record it for the operator (liveServerState, as GET /api/mcp/servers reads it). */
function agentRows(context: McpCliContext, report: McpStatusReport): ListedServer[] {
  const rows = context.manager.serverNames().map((name): ListedServer => {
    const live = liveServerState(report, name);
    const status = context.manager.statusOf(name);
    if (!live) return { name, transport: status.transport, state: "unknown", reason: "the running agent server has not reported it yet (it picks up a configuration change within a few seconds)" };
    return {
      name,
      transport: status.transport,
      ...(status.description ? { description: status.description } : {}),
      state: live.state === "unavailable" && live.timedOut ? "timed_out" : live.state,
      ...(live.reason ? { reason: live.reason } : {}),
      ...(live.toolCount !== undefined ? { toolCount: live.toolCount, ...(live.toolsFrom ? { toolsFrom: live.toolsFrom } : {}) } : {}),
      ...(live.protocolVersion ? { protocolVersion: live.protocolVersion } : {}),
      ...(live.code ? { code: live.code, ...(live.versionsTried ? { versionsTried: live.versionsTried } : {}), ...(live.versionsOffered ? { versionsOffered: live.versionsOffered } : {}) } : {}),
      ...(live.lastErrorAt ? { lastErrorAt: Date.parse(live.lastErrorAt), ...(live.lastError ? { lastError: live.lastError } : {}) } : {}),
    };
  });
  return [...rows, ...context.disabled.map((name) => disabledRow(name, context))];
}

function agentNote(report: McpStatusReport): string {
  const running = report.agents.filter((agent) => agent.running).map((agent) => agent.replica);
  return `states as the running agent server${running.length === 1 ? "" : "s"} ${running.join(", ")} recorded them; --probe connects from here instead`;
}

async function listOneServer(context: McpCliContext, server: string, values: { json?: boolean; cached?: boolean }, io: CliIo): Promise<number> {
  if (context.disabled.includes(server)) {
    throw new ThinktankError("SERVICE_UNAVAILABLE", `MCP server '${server}' is disabled in ${context.config.extensions_config}`, { details: { server } });
  }
  let tools: readonly CatalogTool[];
  if (values.cached) {
    const known = context.manager.knownTools(server);
    if (!known) throw new ThinktankError("NOT_FOUND", `no cached tool list for MCP server '${server}' in ${context.config.mcp.catalog_dir}; run without --cached to connect`, { details: { server } });
    tools = known;
  } else {
    tools = await context.manager.listTools(server);
  }
  const status = context.manager.statusOf(server);
  if (values.json) {
    io.stdout.write(`${JSON.stringify({ server: status, tools }, null, 2)}\n`);
    return 0;
  }
  const lines = [`${server} (${status.transport ?? "unknown transport"}, ${status.state}, ${tools.length} tool${tools.length === 1 ? "" : "s"})`];
  const width = Math.max(0, ...tools.map((tool) => tool.name.length));
  for (const tool of tools) lines.push(`  ${tool.name.padEnd(width)}  ${firstLine(tool.description ?? tool.title ?? "")}`.trimEnd());
  io.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}

/** Tells a server that never answered (its connect timed out, or was still going at the deadline) from one that failed. */
function listedRow(status: ServerStatus, deadlineMs: number | undefined): ListedServer {
  if (status.state === "unavailable" && status.timedOut) return { ...status, state: "timed_out" };
  if (status.state === "connecting" && deadlineMs !== undefined) return { ...status, state: "timed_out", reason: `no answer within ${deadlineMs} ms` };
  return status;
}

function disabledRow(name: string, context: McpCliContext): ListedServer {
  const entry = context.entries[name];
  return {
    name,
    transport: undefined,
    state: "disabled",
    ...(typeof entry?.description === "string" ? { description: entry.description } : {}),
  };
}

function serverTable(rows: readonly ListedServer[]): string {
  const header = ["SERVER", "TRANSPORT", "STATE", "TOOLS", "DETAILS"];
  const cells = rows.map((row) => [row.name, row.transport ?? "-", row.state.replace("_", " "), toolsCell(row), row.reason ?? firstLine(row.description ?? "")]);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((cell) => (cell[column] as string).length)));
  const render = (cell: string[]): string => cell.map((value, column) => (column === 4 ? value : value.padEnd(widths[column] as number))).join("  ").trimEnd();
  return `${[render(header), ...cells.map(render)].join("\n")}\n`;
}

/** The tool count; one read from the disk cache (the server is not connected) says so. */
function toolsCell(row: ListedServer): string {
  if (row.toolCount === undefined) return "-";
  return row.toolsFrom === "cache" ? `${row.toolCount} (cached)` : String(row.toolCount);
}

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0]?.trim() ?? "";
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

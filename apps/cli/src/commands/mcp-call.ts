import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { ThinktankError } from "@thinktank/core";
import type { CliIo } from "../cli-command.js";
import { usageError } from "./subcommand-group.js";
import { openMcpContext } from "./mcp-context.js";
import { promptForArguments } from "./mcp-prompt-arguments.js";
import { renderToolResult, singleBinaryBlock } from "./render-tool-result.js";
import type { ToolResultLike } from "./render-tool-result.js";
import { parseArgumentsOption } from "./parse-arguments-option.js";

/**
 * `thinktank mcp call SERVER.TOOL [--args JSON] [--json] [--interactive] [--output FILE] [--timeout MS]`.
 * Prints the tool's text (or, with --json, the whole result, structuredContent included); a
 * tool error goes to stderr with exit code 1. `--interactive` asks for each parameter the
 * schema names (on a terminal); `--output` writes the result to a file instead of stdout.
 */
export async function runMcpCall(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      args: { type: "string" },
      json: { type: "boolean", default: false },
      interactive: { type: "boolean", short: "i", default: false },
      output: { type: "string", short: "o" },
      timeout: { type: "string" },
    },
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw usageError(`expected one SERVER.TOOL, got ${positionals.length === 0 ? "none" : positionals.join(" ")}`);
  const given = parseArgumentsOption(values.args);
  const timeoutMs = parseTimeout(values.timeout);
  if (values.interactive && !(io.stdin as { isTTY?: boolean }).isTTY) {
    throw usageError("--interactive needs a terminal on standard input; pass the arguments with --args '<json>' instead");
  }
  const context = await openMcpContext(io);
  try {
    const { server, tool } = splitTarget(positionals[0] as string, [...context.manager.serverNames(), ...context.disabled]);
    if (context.disabled.includes(server)) {
      throw new ThinktankError("SERVICE_UNAVAILABLE", `MCP server '${server}' is disabled in ${context.config.extensions_config}`, { details: { server } });
    }
    let toolArguments = given;
    if (values.interactive) {
      const definition = (await context.manager.listTools(server)).find((candidate) => candidate.name === tool);
      if (!definition) throw new ThinktankError("MCP_TOOL_NOT_FOUND", `MCP server '${server}' has no tool '${tool}'`, { details: { server, tool } });
      io.stderr.write(`${server}.${tool}: ${definition.description?.split("\n", 1)[0] ?? ""}\n`);
      toolArguments = await promptForArguments(definition.inputSchema, { input: io.stdin, output: io.stderr, given });
    }
    const result = (await context.manager.callTool(server, tool, toolArguments, timeoutMs ? { timeoutMs } : {})) as ToolResultLike;
    const output = values.json ? `${JSON.stringify(result, null, 2)}\n` : renderToolResult(result);
    if (values.output !== undefined) {
      const file = path.resolve(io.cwd, values.output);
      const bytes = !values.json && !result.isError ? (singleBinaryBlock(result) ?? Buffer.from(output)) : Buffer.from(output);
      fs.writeFileSync(file, bytes);
      io.stderr.write(`wrote ${bytes.length} bytes to ${file}${result.isError ? " (the tool reported an error)" : ""}\n`);
    } else if (result.isError && !values.json) {
      io.stderr.write(`${server}.${tool} reported an error:\n${output}`);
    } else {
      io.stdout.write(output);
    }
    return result.isError ? 1 : 0;
  } finally {
    await context.close();
  }
}

/** SERVER.TOOL where SERVER is a configured name (names may hold dots or colons: the longest match wins). */
export function splitTarget(target: string, servers: readonly string[]): { server: string; tool: string } {
  const matches = servers.filter((name) => target.startsWith(`${name}.`) && target.length > name.length + 1);
  const server = matches.sort((a, b) => b.length - a.length)[0];
  if (server) return { server, tool: target.slice(server.length + 1) };
  const dot = target.indexOf(".");
  if (dot <= 0 || dot === target.length - 1) throw usageError(`expected SERVER.TOOL, got '${target}'`);
  const name = target.slice(0, dot);
  throw new ThinktankError("MCP_SERVER_NOT_FOUND", `no MCP server named '${name}' (configured: ${servers.join(", ") || "none"})`, { details: { server: name } });
}

function parseTimeout(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) <= 0) throw usageError(`--timeout expects milliseconds (a positive whole number), got '${text}'`);
  return Number(text);
}

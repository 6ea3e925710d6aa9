import { isThinktankError } from "@thinktank/core";
import type { CliCommand, CliIo } from "../cli-command.js";
import { runMcpCall } from "./mcp-call.js";
import { runMcpGenerate } from "./mcp-generate.js";
import { runMcpList } from "./mcp-list.js";

/** One `thinktank mcp <name>` subcommand. */
export interface McpSubcommand {
  readonly usage: string;
  run(args: string[], io: CliIo): Promise<number>;
}

/** The subcommands of `thinktank mcp`; add one with a line here (`generate` lives beside it). */
export const mcpSubcommands: Readonly<Record<string, McpSubcommand>> = {
  list: { usage: "mcp list [--server S] [--json] [--cached]", run: runMcpList },
  call: { usage: "mcp call SERVER.TOOL --args '<json>' [--json] [--interactive] [--output FILE] [--timeout MS]", run: runMcpCall },
  generate: { usage: "mcp generate [--server S] [--clean] [--output DIR] [--catalog DIR] [--cached] [--language typescript|python] [--json]", run: runMcpGenerate },
};

/** `thinktank mcp`: the configured MCP servers, their tools, and calling one. */
export function createMcpCommand(subcommands: Readonly<Record<string, McpSubcommand>> = mcpSubcommands): CliCommand {
  const usage = Object.values(subcommands).map((subcommand) => subcommand.usage);
  return {
    name: "mcp",
    summary: "MCP servers: status and tools, call a tool",
    usage,
    async run(args, io) {
      const [name, ...rest] = args;
      const subcommand = name ? subcommands[name] : undefined;
      if (!subcommand) {
        const problem = name && name !== "help" && name !== "--help" ? `unknown subcommand '${name}'\n` : "";
        (problem ? io.stderr : io.stdout).write(`${problem}Usage:\n${usage.map((line) => `  thinktank ${line}`).join("\n")}\n`);
        return problem || !name ? 2 : 0;
      }
      try {
        return await subcommand.run(rest, io);
      } catch (error) {
        if (isUsageError(error)) {
          io.stderr.write(`thinktank mcp ${name}: ${(error as Error).message}\nUsage: thinktank ${subcommand.usage}\n`);
          return 2;
        }
        throw error;
      }
    },
  };
}

export const mcpCommand: CliCommand = createMcpCommand();

function isUsageError(error: unknown): boolean {
  if (isThinktankError(error)) return error.details?.usage === true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS_");
}

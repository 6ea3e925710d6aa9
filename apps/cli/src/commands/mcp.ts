import type { CliCommand } from "../cli-command.js";
import { runMcpCall } from "./mcp-call.js";
import { runMcpGenerate } from "./mcp-generate.js";
import { runMcpList } from "./mcp-list.js";
import { runMcpLogin, runMcpLogout } from "./mcp-login.js";
import { createSubcommandGroup, type Subcommand } from "./subcommand-group.js";

/** One `thinktank mcp <name>` subcommand. */
export type McpSubcommand = Subcommand;

/** The subcommands of `thinktank mcp`; add one with a line here (`generate` lives beside it). */
export const mcpSubcommands: Readonly<Record<string, McpSubcommand>> = {
  list: { usage: "mcp list [--server S] [--json] [--cached] [--probe]", run: runMcpList },
  call: { usage: "mcp call SERVER.TOOL --args '<json>' [--json] [--interactive] [--output FILE] [--timeout MS]", run: runMcpCall },
  login: { usage: "mcp login SERVER [--port N]", run: runMcpLogin },
  logout: { usage: "mcp logout SERVER", run: runMcpLogout },
  generate: { usage: "mcp generate [--server S] [--clean] [--output DIR] [--catalog DIR] [--cached] [--language typescript|python] [--json]", run: runMcpGenerate },
};

/** `thinktank mcp`: the configured MCP servers, their tools, and calling one. */
export function createMcpCommand(subcommands: Readonly<Record<string, McpSubcommand>> = mcpSubcommands): CliCommand {
  return createSubcommandGroup("mcp", "MCP servers: status and tools, call a tool, sign in", subcommands);
}

export const mcpCommand: CliCommand = createMcpCommand();

import type { CliCommand } from "../cli-command.js";

/** A command whose module, and the packages it imports, loads only when it runs. */
export interface LazyCommand extends CliCommand {
  load(): Promise<CliCommand>;
}

function lazy(help: Omit<CliCommand, "run">, load: () => Promise<CliCommand>): LazyCommand {
  return { ...help, load, run: async (args, io) => (await load()).run(args, io) };
}

/**
 * Every top-level command, in the order `thinktank help` lists them. Add new ones here. Each loads
 * its module only when it runs, so `thinktank --help` loads none of them (1.5 s less start-up);
 * that is why the help text is repeated here, and index.test.ts keeps it equal to the modules'.
 */
export const commands: readonly LazyCommand[] = [
  lazy(
    {
      name: "skills",
      group: true,
      summary: "List, search, validate and install Agent Skills",
      usage: ["skills list [--json]", "skills search QUERY [--limit K] [--json] | --batch FILE.jsonl", "skills validate PATH [--json]", "skills install PATH [--overwrite] [--strict] [--trusted] [--json]"],
    },
    async () => (await import("./skills.js")).skillsCommand,
  ),
  lazy(
    {
      name: "agents",
      group: true,
      summary: "List, search, show, enable, install and remove sub-agents",
      usage: [
        "agents list [--json]",
        "agents search QUERY [--json]",
        "agents show IDENTITY [--json]",
        "agents enable IDENTITY [--json]",
        "agents disable IDENTITY [--json]",
        "agents install PATH [--overwrite] [--json]   PATH: a .md agent file, a folder of them (or with an agents/ folder), or a .zip",
        "agents remove IDENTITY",
      ],
    },
    async () => (await import("./agents.js")).agentsCommand,
  ),
  lazy(
    {
      name: "memory",
      group: true,
      summary: "List, show, edit, delete, forget and export a user's memory; turn it on or off",
      usage: [
        "memory list [--user ID --reason TEXT] [--json]",
        "memory show PATH [--user ID --reason TEXT]   PATH: as the model sees it (/memories/profile.md) or below /memories (profile.md)",
        "memory edit PATH [--user ID --reason TEXT] [--from FILE|-]   without --from: opens $VISUAL or $EDITOR on the file",
        "memory delete PATH [--user ID --reason TEXT]",
        "memory forget --yes [--user ID --reason TEXT]   removes every file of the memory",
        "memory export [--user ID --reason TEXT] [--output FILE.zip|-]",
        "memory settings [--user ID --reason TEXT] [--enabled on|off] [--auto on|off] [--json]   without --enabled/--auto: shows them",
      ],
    },
    async () => (await import("./memory.js")).memoryCommand,
  ),
  lazy(
    {
      name: "plugins",
      group: true,
      summary: "List, install and update Claude Code plugins",
      usage: ["plugins list [--json]", "plugins install PATH | NAME@MARKETPLACE | --marketplace M --plugin P [--strict] [--trusted] [--json]", "plugins update NAME [--strict] [--trusted] [--json]"],
    },
    async () => (await import("./plugins.js")).pluginsCommand,
  ),
  lazy(
    {
      name: "marketplace",
      group: true,
      summary: "Add, browse, update and remove plugin marketplaces (GitHub, git, npm, URL, folder)",
      usage: [
        "marketplace add SOURCE [--name N] [--json]   SOURCE: owner/repo[#ref], a git URL, npm:PACKAGE[@VERSION], a marketplace.json URL, or a folder",
        "marketplace list [NAME] [--json]   without NAME the marketplaces; with NAME its plugins",
        "marketplace update NAME [--json]",
        "marketplace remove NAME",
      ],
    },
    async () => (await import("./marketplace.js")).marketplaceCommand,
  ),
  lazy(
    {
      name: "mcp",
      group: true,
      summary: "MCP servers: status and tools, call a tool, sign in",
      usage: [
        "mcp list [--server S] [--json] [--cached] [--probe]",
        "mcp call SERVER.TOOL --args '<json>' [--json] [--interactive] [--output FILE] [--timeout MS]",
        "mcp login SERVER [--port N]",
        "mcp logout SERVER",
        "mcp generate [--server S] [--clean] [--output DIR] [--catalog DIR] [--cached] [--language typescript|python] [--json]",
      ],
    },
    async () => (await import("./mcp.js")).mcpCommand,
  ),
  lazy(
    {
      name: "start",
      summary: "Start the gateway (:8001) and the agent server (:2024); Ctrl-C stops both",
      usage: ["start                   ports, hosts and the API key from config.yaml or the environment"],
    },
    async () => (await import("./start.js")).startCommand,
  ),
  lazy(
    {
      name: "gateway",
      summary: "Run the gateway (REST API, :8001) alone in the foreground",
      usage: ["gateway                 port, host and the API key from config.yaml or the environment (GATEWAY_PORT, GATEWAY_HOST, THINKTANK_API_KEY)"],
    },
    async () => (await import("./gateway.js")).gatewayCommand,
  ),
  lazy(
    {
      name: "tools",
      group: true,
      summary: "Tools: search the tool catalog by what a tool does, call a registered tool",
      usage: ["tools search QUERY [--server S] [--detail name|desc|full] [--limit K] [--catalog DIR] [--batch FILE.jsonl] [--json]", "tools call NAME --args '<json>' [--json]"],
    },
    async () => (await import("./tools.js")).toolsCommand,
  ),
  lazy(
    {
      name: "exec",
      summary: "Run a program as execute_code would: in the sandbox, with the configured MCP servers",
      usage: [
        "exec FILE|- [--language typescript|javascript|python] [--timeout S] [--thread ID] [--json]   the language follows the file extension; - reads the program from stdin",
      ],
    },
    async () => (await import("./exec.js")).execCommand,
  ),
  lazy(
    {
      name: "inspect",
      group: true,
      summary: "Inspect what the agent sends the model",
      usage: [
        "inspect prompt [--mode direct|code|auto] [--listing full|compact|auto] [--catalog DIR] [--user ID] [--assistant ID] [--message TEXT | --agent NAME | --batch FILE.jsonl] [--json]   the system prompt, tool definitions and message context of a new thread, with token counts; --agent: a sub-agent's prompt, tools and model",
      ],
    },
    async () => (await import("./inspect.js")).inspectCommand,
  ),
];

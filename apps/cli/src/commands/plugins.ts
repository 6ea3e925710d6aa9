import path from "node:path";
import { parseArgs } from "node:util";
import { ExtensionsStore, archiveLimitsFromConfig, loadConfig } from "@thinktank/core";
import { PluginManager, describeProblem } from "@thinktank/plugins";
import type { CliCommand, CliIo } from "../cli-command.js";

const usage = ["plugins list [--json]", "plugins install PATH [--json]", "plugins install --marketplace M --plugin P [--json]"];

/** `thinktank plugins list|install`: the same library and rules as the gateway's /api/plugins. */
export const pluginsCommand: CliCommand = {
  name: "plugins",
  summary: "List and install Claude Code plugins",
  usage,
  async run(args, io) {
    const [subcommand, ...rest] = args;
    switch (subcommand) {
      case "list":
        return list(rest, io);
      case "install":
        return install(rest, io);
      default:
        io.stderr.write(`${subcommand ? `thinktank plugins: unknown subcommand '${subcommand}'\n` : ""}Usage:\n${usage.map((line) => `  thinktank ${line}`).join("\n")}\n`);
        return 2;
    }
  },
};

interface Parsed {
  readonly json: boolean;
  readonly marketplace: string | undefined;
  readonly plugin: string | undefined;
  readonly positionals: string[];
}

function parse(args: string[], io: CliIo): Parsed | undefined {
  try {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { json: { type: "boolean", default: false }, marketplace: { type: "string" }, plugin: { type: "string" } },
    });
    return { json: values.json === true, marketplace: values.marketplace, plugin: values.plugin, positionals };
  } catch (error) {
    io.stderr.write(`thinktank plugins: ${error instanceof Error ? error.message : String(error)}\n`);
    return undefined;
  }
}

function managerFor(io: CliIo): PluginManager {
  const config = loadConfig({ env: io.env, cwd: io.cwd });
  return new PluginManager({
    pluginsDir: config.plugins.path,
    store: new ExtensionsStore(config.extensions_config),
    env: config.env,
    containerPath: config.skills.container_path,
    limits: archiveLimitsFromConfig(config),
    watch: false,
  });
}

async function list(args: string[], io: CliIo): Promise<number> {
  const parsed = parse(args, io);
  if (!parsed) return 2;
  if (parsed.positionals.length > 0 || parsed.marketplace !== undefined || parsed.plugin !== undefined) {
    io.stderr.write("Usage: thinktank plugins list [--json]\n");
    return 2;
  }
  const manager = managerFor(io);
  try {
    const { plugins } = await manager.list();
    if (parsed.json) {
      io.stdout.write(`${JSON.stringify({ plugins }, null, 2)}\n`);
      return 0;
    }
    if (plugins.length === 0) io.stdout.write("no plugins installed\n");
    const width = Math.max(8, ...plugins.map((p) => p.name.length));
    for (const plugin of plugins) {
      const { skills, commands, agents, servers } = plugin.counts;
      const counts = `${skills} skills, ${commands} commands, ${agents} agents, ${servers} servers`;
      io.stdout.write(`${plugin.name.padEnd(width)}  ${(plugin.version ?? "-").padEnd(8)}  ${plugin.state.padEnd(8)}  ${counts}\n`);
    }
    return 0;
  } finally {
    manager.close();
  }
}

async function install(args: string[], io: CliIo): Promise<number> {
  const parsed = parse(args, io);
  if (!parsed) return 2;
  const fromMarketplace = parsed.marketplace !== undefined || parsed.plugin !== undefined;
  const [target] = parsed.positionals;
  const usable = fromMarketplace ? parsed.marketplace && parsed.plugin && parsed.positionals.length === 0 : target && parsed.positionals.length === 1;
  if (!usable) {
    io.stderr.write("Usage: thinktank plugins install PATH   (a plugin folder or .zip)\n       thinktank plugins install --marketplace M --plugin P   (a marketplace.json or its folder, and an entry name)\n");
    return 2;
  }
  const manager = managerFor(io);
  try {
    const result = fromMarketplace
      ? await manager.installFromMarketplace(path.resolve(io.cwd, parsed.marketplace!), parsed.plugin!)
      : await manager.installPath(path.resolve(io.cwd, target!));
    if (parsed.json) {
      io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return 0;
    }
    io.stdout.write(
      `installed ${result.name}${result.version ? ` ${result.version}` : ""} (enabled): ${result.skills.length} skills, ${result.commands.length} commands, ${result.agents.length} agents, ${result.servers.length} servers\n`,
    );
    for (const warning of result.warnings) io.stdout.write(`  warning: ${describeProblem(warning)}\n`);
    return 0;
  } finally {
    manager.close();
  }
}

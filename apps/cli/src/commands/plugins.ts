import path from "node:path";
import { parseArgs } from "node:util";
import { ExtensionsStore, archiveLimitsFromConfig, loadConfig, type Config } from "@thinktank/core";
import { PluginManager, describeProblem } from "@thinktank/plugins";
import type { CliCommand, CliIo } from "../cli-command.js";
import { createSubcommandGroup, usageError } from "./subcommand-group.js";

/** `thinktank plugins list|install`: the same library and rules as the gateway's /api/plugins. */
export const pluginsCommand: CliCommand = createSubcommandGroup("plugins", "List and install Claude Code plugins", {
  list: { usage: "plugins list [--json]", run: list },
  install: { usage: "plugins install PATH | --marketplace M --plugin P [--strict] [--json]", run: install },
});

function parse(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: "boolean", default: false }, strict: { type: "boolean", default: false }, marketplace: { type: "string" }, plugin: { type: "string" } },
  });
  return { json: values.json === true, strict: values.strict === true, marketplace: values.marketplace, plugin: values.plugin, positionals };
}

function managerFor(io: CliIo): PluginManager {
  return pluginManagerFor(loadConfig({ env: io.env, cwd: io.cwd }));
}

/** The plugin manager over config's plugins folder and store, without watchers (a CLI run is short). */
export function pluginManagerFor(config: Config, store: ExtensionsStore = new ExtensionsStore(config.extensions_config)): PluginManager {
  return new PluginManager({
    pluginsDir: config.plugins.path,
    store,
    env: config.env,
    stdioServers: config.plugins.stdio_servers,
    containerPath: config.skills.container_path,
    limits: archiveLimitsFromConfig(config),
    watch: false,
  });
}

async function list(args: string[], io: CliIo): Promise<number> {
  const parsed = parse(args);
  if (parsed.positionals.length > 0 || parsed.marketplace !== undefined || parsed.plugin !== undefined) throw usageError("takes no PATH, --marketplace or --plugin");
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
  const parsed = parse(args);
  const fromMarketplace = parsed.marketplace !== undefined || parsed.plugin !== undefined;
  const [target] = parsed.positionals;
  const usable = fromMarketplace ? parsed.marketplace && parsed.plugin && parsed.positionals.length === 0 : target && parsed.positionals.length === 1;
  if (!usable) throw usageError(fromMarketplace ? "--marketplace and --plugin go together, without a PATH" : "expected one PATH (a plugin folder or .zip), or --marketplace M --plugin P (a marketplace.json or its folder, and an entry name)");
  const manager = managerFor(io);
  try {
    const options = { strict: parsed.strict };
    const result = fromMarketplace
      ? await manager.installFromMarketplace(path.resolve(io.cwd, parsed.marketplace!), parsed.plugin!, options)
      : await manager.installPath(path.resolve(io.cwd, target!), options);
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

import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { ExtensionsStore, type Config } from "@thinktank/core";
import { describeProblem, pluginManagerFromConfig, type PluginInstallView, type PluginManager } from "@thinktank/plugins";
import type { CliCommand, CliIo } from "../cli-command.js";
import { createSubcommandGroup, usageError } from "./subcommand-group.js";
import { loadCliConfig } from "./cli-config.js";

/** `thinktank plugins list|install|update`: the same library and rules as the gateway's /api/plugins. */
export const pluginsCommand: CliCommand = createSubcommandGroup("plugins", "List, install and update Claude Code plugins", {
  list: { usage: "plugins list [--json]", run: list },
  install: { usage: "plugins install PATH | NAME@MARKETPLACE | --marketplace M --plugin P [--strict] [--trusted] [--json]", run: install },
  update: { usage: "plugins update NAME [--strict] [--trusted] [--json]", run: update },
});

function parse(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: "boolean", default: false }, strict: { type: "boolean", default: false }, trusted: { type: "boolean", default: false }, marketplace: { type: "string" }, plugin: { type: "string" } },
  });
  return { json: values.json === true, strict: values.strict === true, trusted: values.trusted === true, marketplace: values.marketplace, plugin: values.plugin, positionals };
}

/** The config of the current folder (THINKTANK_CONFIG, ./config.yaml, defaults). */
export function configFor(io: CliIo): Config {
  return loadCliConfig(io);
}

/** The plugin manager over config's plugins folder and store, without watchers (a CLI run is short). */
export function pluginManagerFor(config: Config, store: ExtensionsStore = new ExtensionsStore(config.extensions_config)): PluginManager {
  return pluginManagerFromConfig(config, store, { watch: false });
}

async function list(args: string[], io: CliIo): Promise<number> {
  const parsed = parse(args);
  if (parsed.positionals.length > 0 || parsed.marketplace !== undefined || parsed.plugin !== undefined || parsed.trusted) throw usageError("takes no PATH, --marketplace, --plugin or --trusted");
  const manager = pluginManagerFor(configFor(io));
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
      io.stdout.write(`${plugin.name.padEnd(width)}  ${(plugin.version ?? "-").padEnd(8)}  ${plugin.state.padEnd(8)}  ${plugin.trusted ? "trusted  " : "untrusted"}  ${counts}\n`);
    }
    return 0;
  } finally {
    manager.close();
  }
}

const nameAtMarketplace = /^([A-Za-z0-9][A-Za-z0-9._-]*)@([A-Za-z0-9][A-Za-z0-9._-]*)$/;

async function install(args: string[], io: CliIo): Promise<number> {
  const parsed = parse(args);
  const fromOptions = parsed.marketplace !== undefined || parsed.plugin !== undefined;
  const [target] = parsed.positionals;
  const usable = fromOptions ? parsed.marketplace && parsed.plugin && parsed.positionals.length === 0 : target && parsed.positionals.length === 1;
  if (!usable) {
    throw usageError(fromOptions ? "--marketplace and --plugin go together, without a PATH" : "expected one PATH (a plugin folder or .zip), NAME@MARKETPLACE (a marketplace added with `thinktank marketplace add`), or --marketplace M --plugin P");
  }
  const manager = pluginManagerFor(configFor(io));
  try {
    const options = { strict: parsed.strict, trusted: parsed.trusted };
    // NAME@MARKETPLACE unless a file or folder of that name exists here.
    const named = !fromOptions && target && !fs.existsSync(path.resolve(io.cwd, target)) ? nameAtMarketplace.exec(target) : null;
    let result: PluginInstallView;
    if (named) result = await manager.installFromMarketplace(named[2] as string, named[1] as string, options);
    else if (fromOptions) result = await manager.installFromMarketplace(await marketplaceArgument(manager, parsed.marketplace as string, io), parsed.plugin as string, options);
    else result = await manager.installPath(path.resolve(io.cwd, target as string), options);
    report(io, parsed.json, result, `installed ${result.name}${result.version ? ` ${result.version}` : ""}${pinOf(result)} (enabled, ${result.trusted ? "trusted" : "untrusted"})`);
    return 0;
  } finally {
    manager.close();
  }
}

async function update(args: string[], io: CliIo): Promise<number> {
  const parsed = parse(args);
  const [name] = parsed.positionals;
  if (!name || parsed.positionals.length !== 1 || parsed.marketplace !== undefined || parsed.plugin !== undefined) throw usageError("expected one NAME (a plugin installed from a marketplace added by name)");
  const manager = pluginManagerFor(configFor(io));
  try {
    // An update keeps the plugin's trust; --trusted marks it trusted as well.
    const result = await manager.update(name, { strict: parsed.strict, ...(parsed.trusted ? { trusted: true } : {}) });
    const previousDigest = isArchive(result) ? archiveDigest(result.previous.integrity) : undefined;
    const from = previousDigest ? `${result.previous.version ? `${result.previous.version} ` : ""}at ${previousDigest}` : (result.previous.version ?? result.previous.commit?.slice(0, 12) ?? "?");
    report(io, parsed.json, result, `updated ${result.name} to ${result.version ?? "?"}${pinOf(result)} (from ${from})`);
    return 0;
  } finally {
    manager.close();
  }
}

/** --marketplace M: a marketplace added by name as it is, else a path relative to the current folder. */
async function marketplaceArgument(manager: PluginManager, value: string, io: CliIo): Promise<string> {
  const added = (await manager.listMarketplaces()).some((marketplace) => marketplace.name === value);
  return added ? value : path.resolve(io.cwd, value);
}

function pinOf(result: PluginInstallView): string {
  const commit = result.versions?.installed.commit;
  if (commit) return ` at ${commit.slice(0, 12)}`;
  const digest = isArchive(result) ? archiveDigest(result.versions?.installed.integrity) : undefined;
  return digest ? ` at ${digest}` : "";
}

function isArchive(result: PluginInstallView): boolean {
  return result.source.type === "marketplace" && result.source.sourceType === "archive";
}

/** An archive's recorded `sha256-<base64>` shown as marketplaces write it: `sha256:` and the first 12 hex digits. */
function archiveDigest(integrity: string | undefined): string | undefined {
  if (!integrity?.startsWith("sha256-")) return undefined;
  return `sha256:${Buffer.from(integrity.slice(7), "base64").toString("hex").slice(0, 12)}`;
}

function report(io: CliIo, json: boolean, result: PluginInstallView, headline: string): void {
  if (json) {
    io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  io.stdout.write(`${headline}: ${result.skills.length} skills, ${result.commands.length} commands, ${result.agents.length} agents, ${result.servers.length} servers\n`);
  for (const warning of result.warnings) io.stdout.write(`  warning: ${describeProblem(warning)}\n`);
}

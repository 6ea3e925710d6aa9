import { parseArgs } from "node:util";
import type { MarketplaceView } from "@thinktank/plugins";
import type { CliCommand, CliIo } from "../cli-command.js";
import { configFor, pluginManagerFor } from "./plugins.js";
import { createSubcommandGroup, usageError } from "./subcommand-group.js";

/** `thinktank marketplace add|list|update|remove`: the same library and rules as the gateway's /api/marketplaces. */
export const marketplaceCommand: CliCommand = createSubcommandGroup("marketplace", "Add, browse, update and remove plugin marketplaces (GitHub, git, npm, URL, folder)", {
  add: { usage: "marketplace add SOURCE [--name N] [--json]   SOURCE: owner/repo[#ref], a git URL, npm:PACKAGE[@VERSION], a marketplace.json URL, or a folder", run: add },
  list: { usage: "marketplace list [NAME] [--json]   without NAME the marketplaces; with NAME its plugins", run: list },
  update: { usage: "marketplace update NAME [--json]", run: update },
  remove: { usage: "marketplace remove NAME", run: remove },
});

function parse(args: string[], count: { min: number; max: number }, what: string) {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: "boolean", default: false }, name: { type: "string" } } });
  if (positionals.length < count.min || positionals.length > count.max) throw usageError(`expected ${what}`);
  return { json: values.json === true, name: values.name, positionals };
}

async function withManager<T>(io: CliIo, work: (manager: ReturnType<typeof pluginManagerFor>) => Promise<T>): Promise<T> {
  const manager = pluginManagerFor(configFor(io));
  try {
    return await work(manager);
  } finally {
    manager.close();
  }
}

function describe(marketplace: MarketplaceView): string {
  const pin = marketplace.pinned?.commit?.slice(0, 12) ?? marketplace.pinned?.version ?? marketplace.pinned?.sha256?.slice(0, 12) ?? "-";
  const where = String(marketplace.source.repo ?? marketplace.source.url ?? marketplace.source.package ?? marketplace.source.path ?? "");
  return `${marketplace.name}  ${marketplace.source.source} ${where}  ${pin}  ${marketplace.plugins} plugins`;
}

async function add(args: string[], io: CliIo): Promise<number> {
  const parsed = parse(args, { min: 1, max: 1 }, "one SOURCE");
  const added = await withManager(io, (manager) => manager.addMarketplace(parsed.positionals[0], parsed.name));
  io.stdout.write(parsed.json ? `${JSON.stringify(added, null, 2)}\n` : `added ${describe(added)}\n`);
  for (const problem of parsed.json ? [] : added.problems) io.stdout.write(`  skipped entry: ${problem}\n`);
  return 0;
}

async function list(args: string[], io: CliIo): Promise<number> {
  const parsed = parse(args, { min: 0, max: 1 }, "at most one NAME");
  const [name] = parsed.positionals;
  if (parsed.name !== undefined) throw usageError("--name is for add");
  if (name) {
    const { plugins } = await withManager(io, (manager) => manager.marketplacePlugins(name));
    if (parsed.json) io.stdout.write(`${JSON.stringify({ marketplace: name, plugins }, null, 2)}\n`);
    const width = Math.max(8, ...plugins.map((p) => p.name.length));
    for (const plugin of parsed.json ? [] : plugins) {
      const state = plugin.installed ? `installed${plugin.installed_version ? ` ${plugin.installed_version}` : ""}` : "-";
      io.stdout.write(`${plugin.name.padEnd(width)}  ${(plugin.version ?? "-").padEnd(8)}  ${plugin.source_type.padEnd(10)}  ${state}\n`);
    }
    return 0;
  }
  const marketplaces = await withManager(io, (manager) => manager.listMarketplaces());
  if (parsed.json) io.stdout.write(`${JSON.stringify({ marketplaces }, null, 2)}\n`);
  else if (marketplaces.length === 0) io.stdout.write("no marketplaces added\n");
  else for (const marketplace of marketplaces) io.stdout.write(`${describe(marketplace)}\n`);
  return 0;
}

async function update(args: string[], io: CliIo): Promise<number> {
  const parsed = parse(args, { min: 1, max: 1 }, "one NAME");
  const updated = await withManager(io, (manager) => manager.updateMarketplace(parsed.positionals[0] as string));
  io.stdout.write(parsed.json ? `${JSON.stringify(updated, null, 2)}\n` : `updated ${describe(updated)}\n`);
  return 0;
}

async function remove(args: string[], io: CliIo): Promise<number> {
  const parsed = parse(args, { min: 1, max: 1 }, "one NAME");
  await withManager(io, (manager) => manager.removeMarketplace(parsed.positionals[0] as string));
  io.stdout.write(`removed ${parsed.positionals[0]}\n`);
  return 0;
}

import path from "node:path";
import { parseArgs } from "node:util";
import { archiveLimitsFromConfig, ExtensionsStore, type Config } from "@thinktank/core";
import { AgentsService, toAgentDetailJson, toAgentJson, type AgentDefinition } from "@thinktank/subagents";
import type { CliCommand, CliIo } from "../cli-command.js";
import { loadCliConfig } from "./cli-config.js";
import { pluginManagerFor } from "./plugins.js";
import { createSubcommandGroup, usageError } from "./subcommand-group.js";

/** `thinktank agents list|search|show|enable|disable|install|remove`: the same library and rules as the gateway's /api/agents, as the operator. */
export const agentsCommand: CliCommand = createSubcommandGroup("agents", "List, search, show, enable, install and remove sub-agents", {
  list: { usage: "agents list [--json]", run: list },
  search: { usage: "agents search QUERY [--json]", run: search },
  show: { usage: "agents show IDENTITY [--json]", run: show },
  enable: { usage: "agents enable IDENTITY [--json]", run: (args, io) => setEnabled(args, io, true) },
  disable: { usage: "agents disable IDENTITY [--json]", run: (args, io) => setEnabled(args, io, false) },
  install: { usage: "agents install PATH [--overwrite] [--json]   PATH: a .md agent file, a folder of them (or with an agents/ folder), or a .zip", run: install },
  remove: { usage: "agents remove IDENTITY", run: remove },
});

/**
 * Runs `work` with the agents service the gateway uses (built-in, agents/custom and every installed
 * plugin's agents, a disabled plugin's listed as off), settings from the store, no watchers.
 */
async function withAgentsService<T>(config: Config, work: (service: AgentsService) => Promise<T>): Promise<T> {
  const store = new ExtensionsStore(config.extensions_config);
  const plugins = pluginManagerFor(config, store);
  const service = new AgentsService({ agentsRoot: config.agents.path, store, limits: archiveLimitsFromConfig(config), plugins: () => plugins.agentPlugins(), watch: false });
  try {
    return await work(service);
  } finally {
    service.close();
    plugins.close();
  }
}

/** The options of a subcommand, and its one argument when `what` names it (a usage error otherwise). */
function parse(args: string[], what?: string, withOverwrite = false): { json: boolean; overwrite: boolean; target: string } {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: "boolean", default: false }, ...(withOverwrite ? { overwrite: { type: "boolean" as const, default: false } } : {}) },
  });
  if (what === undefined && positionals.length > 0) throw usageError("takes no arguments");
  if (what !== undefined && positionals.length !== 1) throw usageError(`expected one ${what}`);
  return { json: values.json === true, overwrite: (values as { overwrite?: boolean }).overwrite === true, target: positionals[0] ?? "" };
}

function firstLine(text: string, max = 80): string {
  const line = text.split("\n")[0] ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function rows(agents: readonly AgentDefinition[]): string {
  const width = Math.max(8, ...agents.map((agent) => agent.identity.length));
  return agents.map((agent) => `${agent.identity.padEnd(width)}  ${agent.enabled ? "enabled " : "disabled"}  ${firstLine(agent.description)}\n`).join("");
}

async function list(args: string[], io: CliIo): Promise<number> {
  const parsed = parse(args);
  const config = loadCliConfig(io);
  const { agents, problems } = await withAgentsService(config, (service) => service.list());
  if (parsed.json) {
    io.stdout.write(`${JSON.stringify({ agents: agents.map(toAgentJson), problems }, null, 2)}\n`);
    return 0;
  }
  io.stdout.write(rows(agents));
  for (const problem of problems) io.stderr.write(`${problem.severity}: ${problem.file}: ${problem.message}\n`);
  return 0;
}

async function search(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: "boolean", default: false } } });
  const query = positionals.join(" ").trim();
  if (query === "") throw usageError('say what the task is, e.g. thinktank agents search "review my pull request"');
  const hits = await withAgentsService(loadCliConfig(io), (service) => service.search(query));
  if (values.json) {
    io.stdout.write(`${JSON.stringify({ query, agents: hits.map(({ agent, score }) => ({ ...toAgentJson(agent), score })) }, null, 2)}\n`);
    return 0;
  }
  if (hits.length === 0) io.stdout.write(`no agents match '${query}'\n`);
  const width = Math.max(8, ...hits.map(({ agent }) => agent.identity.length));
  hits.forEach(({ agent, score }, index) => io.stdout.write(`${String(index + 1).padStart(2)}. ${agent.identity.padEnd(width)}  ${score.toFixed(3)}${agent.enabled ? "" : "  (disabled)"}\n    ${firstLine(agent.description, 160)}\n`));
  return 0;
}

async function show(args: string[], io: CliIo): Promise<number> {
  const parsed = parse(args, "IDENTITY (or a unique name)");
  const { agent, prompt } = await withAgentsService(loadCliConfig(io), async (service) => {
    const found = await service.get(parsed.target);
    return { agent: found, prompt: await service.prompt(found) };
  });
  if (parsed.json) {
    io.stdout.write(`${JSON.stringify(toAgentDetailJson(agent, prompt), null, 2)}\n`);
    return 0;
  }
  const lines = [
    `${agent.identity} (${agent.enabled ? "enabled" : `disabled${agent.disabledReason ? `: ${agent.disabledReason}` : ""}`})`,
    `description: ${agent.description}`,
    `tools: ${agent.tools ? agent.tools.join(", ") || "(none)" : "the lead's"}`,
    `model: ${agent.model ?? "the lead's"}`,
    ...(agent.file ? [`file: ${agent.file}`] : []),
    "",
    prompt,
  ];
  io.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}

async function setEnabled(args: string[], io: CliIo, enabled: boolean): Promise<number> {
  const parsed = parse(args, "IDENTITY (or a unique name)");
  const agent = await withAgentsService(loadCliConfig(io), (service) => service.setEnabled(parsed.target, enabled));
  io.stdout.write(parsed.json ? `${JSON.stringify(toAgentJson(agent), null, 2)}\n` : `${agent.identity} ${agent.enabled ? "enabled" : "disabled"}${agent.disabledReason ? ` (${agent.disabledReason})` : ""}\n`);
  return 0;
}

async function install(args: string[], io: CliIo): Promise<number> {
  const parsed = parse(args, "PATH (a .md agent file, a folder of them, or a .zip)", true);
  const installed = await withAgentsService(loadCliConfig(io), (service) => service.install({ kind: "path", path: path.resolve(io.cwd, parsed.target) }, { overwrite: parsed.overwrite }));
  if (parsed.json) {
    io.stdout.write(`${JSON.stringify({ agents: installed.map(({ agent }) => toAgentJson(agent)), warnings: installed.flatMap(({ warnings }) => warnings) }, null, 2)}\n`);
    return 0;
  }
  for (const { agent, warnings } of installed) {
    io.stdout.write(`installed ${agent.identity} at ${agent.file ?? ""}\n`);
    for (const warning of warnings) io.stdout.write(`  warning: ${warning.message}\n`);
  }
  return 0;
}

async function remove(args: string[], io: CliIo): Promise<number> {
  const parsed = parse(args, "IDENTITY (or a unique name)");
  const agent = await withAgentsService(loadCliConfig(io), (service) => service.remove(parsed.target));
  io.stdout.write(`removed ${agent.identity}\n`);
  return 0;
}

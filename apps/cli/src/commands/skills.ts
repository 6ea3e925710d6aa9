import path from "node:path";
import { parseArgs } from "node:util";
import { archiveLimitsFromConfig } from "@thinktank/core";
import type { Config } from "@thinktank/core";
import { toSkillJson, validateSkillPackage } from "@thinktank/skills";
import type { CliCommand, CliIo } from "../cli-command.js";
import { runSkillsSearch } from "./skills-search.js";
import { withSkillsService } from "./skills-service-for.js";
import { createSubcommandGroup, usageError } from "./subcommand-group.js";
import { loadCliConfig } from "./cli-config.js";

/** `thinktank skills list|search|validate|install`: the same library and rules as the gateway's /api/skills. */
export const skillsCommand: CliCommand = createSubcommandGroup("skills", "List, search, validate and install Agent Skills", {
  list: { usage: "skills list [--json]", run: list },
  search: { usage: "skills search QUERY [--limit K] [--json] | --batch FILE.jsonl", run: runSkillsSearch },
  validate: { usage: "skills validate PATH [--json]", run: validate },
  install: { usage: "skills install PATH [--overwrite] [--strict] [--trusted] [--json]", run: install },
});

/** The options of a skills subcommand, and its one PATH when `what` names it (a usage error otherwise). */
function parse(args: string[], what?: string, options: { overwrite?: boolean } = {}): { json: boolean; overwrite: boolean; strict: boolean; trusted: boolean; target: string } {
  const installFlags = { overwrite: { type: "boolean" as const, default: false }, strict: { type: "boolean" as const, default: false }, trusted: { type: "boolean" as const, default: false } };
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: "boolean", default: false }, ...(options.overwrite ? installFlags : {}) },
  });
  if (what === undefined && positionals.length > 0) throw usageError("takes no PATH");
  if (what !== undefined && positionals.length !== 1) throw usageError(`expected one PATH (${what})`);
  const flags = values as { overwrite?: boolean; strict?: boolean; trusted?: boolean };
  return { json: values.json === true, overwrite: flags.overwrite === true, strict: flags.strict === true, trusted: flags.trusted === true, target: positionals[0] ?? "" };
}

function configFor(io: CliIo): Config {
  return loadCliConfig(io);
}

async function list(args: string[], io: CliIo): Promise<number> {
  const parsed = parse(args);
  const config = configFor(io);
  // The gateway's view: public, custom and every installed plugin's skills (a disabled plugin's listed as disabled).
  const { skills, problems } = await withSkillsService(config, (service) => service.list());
  if (parsed.json) {
    io.stdout.write(`${JSON.stringify({ skills: skills.map(toSkillJson), problems }, null, 2)}\n`);
    return 0;
  }
  const width = Math.max(8, ...skills.map((skill) => skill.identity.length));
  for (const skill of skills) {
    const firstLine = skill.description.split("\n")[0] ?? "";
    const summary = firstLine.length > 80 ? `${firstLine.slice(0, 79)}…` : firstLine;
    io.stdout.write(`${skill.identity.padEnd(width)}  ${skill.enabled ? "enabled " : "disabled"}  ${skill.trusted ? "trusted  " : "untrusted"}  ${summary}\n`);
    for (const warning of skill.warnings) io.stdout.write(`${"".padEnd(width)}  warning   ${warning}\n`);
  }
  if (skills.length === 0) io.stdout.write(`no skills in ${config.skills.path}\n`);
  for (const problem of problems) io.stderr.write(`skipped: ${problem.message}\n`);
  return 0;
}

async function validate(args: string[], io: CliIo): Promise<number> {
  const parsed = parse(args, "a skill folder, its SKILL.md, or a .skill/.zip archive");
  const { target } = parsed;
  const config = configFor(io);
  const result = await validateSkillPackage({ kind: "path", path: path.resolve(io.cwd, target) }, { limits: archiveLimitsFromConfig(config) });
  const valid = result.problems.length === 0;
  if (parsed.json) io.stdout.write(`${JSON.stringify({ valid, name: result.name ?? null, problems: result.problems }, null, 2)}\n`);
  else if (valid) io.stdout.write(`${target}: valid skill "${result.name}"\n`);
  else {
    io.stdout.write(`${target}: not a valid skill (${result.problems.length} problem${result.problems.length === 1 ? "" : "s"})\n`);
    for (const problem of result.problems) io.stdout.write(`  - ${problem}\n`);
  }
  return valid ? 0 : 1;
}

async function install(args: string[], io: CliIo): Promise<number> {
  const parsed = parse(args, "a skill folder or a .skill/.zip archive", { overwrite: true });
  const { target } = parsed;
  const config = configFor(io);
  const skill = await withSkillsService(config, (service) => service.install({ kind: "path", path: path.resolve(io.cwd, target) }, { overwrite: parsed.overwrite, strict: parsed.strict, trusted: parsed.trusted }));
  if (parsed.json) io.stdout.write(`${JSON.stringify(toSkillJson(skill), null, 2)}\n`);
  else {
    io.stdout.write(`installed ${skill.identity} (${skill.enabled ? "enabled" : "disabled"}, ${skill.trusted ? "trusted" : "untrusted"}) at ${skill.containerPath}\n`);
    for (const warning of skill.warnings) io.stdout.write(`  warning: ${warning}\n`);
  }
  return 0;
}

import path from "node:path";
import { ThinktankError } from "@thinktank/core";
import type { LoadedPlugin, PluginManifest, PluginProblem } from "./plugin-types.js";
import { componentLocations } from "./components/component-paths.js";
import { readAgents } from "./components/read-agents.js";
import { readCommands } from "./components/read-commands.js";
import { readHooks } from "./components/read-hooks.js";
import { readPluginServers } from "./components/read-plugin-servers.js";
import { readPluginSkills } from "./components/read-plugin-skills.js";
import { readPluginManifest } from "./manifest/read-plugin-manifest.js";

export interface LoadPluginOptions {
  /** The name to use when the plugin has no manifest. @default the folder's name */
  readonly fallbackName?: string;
  /** The name to namespace components with whatever the manifest says (an installed plugin's folder name). */
  readonly name?: string;
}

/**
 * Reads a plugin folder completely: manifest, skills, commands, agents, hooks and MCP servers.
 * Never throws for a bad plugin: every problem is in `problems` (use `assertPluginValid` to refuse
 * one with errors). Reads only; nothing is executed or expanded.
 */
export function loadPlugin(root: string, options: LoadPluginOptions = {}): LoadedPlugin {
  const reading = readPluginManifest(root, options.fallbackName ?? path.basename(root));
  const problems: PluginProblem[] = [...reading.problems];
  const manifest = reading.manifest;
  const name = options.name ?? manifest.name;
  const skills = readPluginSkills(root, name, manifest, problems);
  const commands = readCommands(root, name, manifest, problems);
  const agents = readAgents(root, name, manifest, problems);
  const hooks = readHooks(root, manifest, problems);
  const servers = readPluginServers(root, manifest, problems);
  checkOtherPaths(root, manifest, problems);
  return {
    name,
    root,
    manifest,
    manifestSource: reading.source,
    skills: skills.skills,
    commands,
    agents,
    hooks,
    servers,
    skillRoots: skills.roots,
    singleSkillRoots: skills.singleRoots,
    problems,
  };
}

/** Throws INVALID_PLUGIN listing every error (warnings do not count) when the plugin has any. */
export function assertPluginValid(plugin: LoadedPlugin): void {
  const errors = plugin.problems.filter((p) => p.severity === "error");
  if (errors.length === 0) return;
  const reasons = errors.map(describeProblem);
  throw new ThinktankError("INVALID_PLUGIN", `plugin '${plugin.name}' is not valid: ${reasons.join("; ")}`, { details: { problems: errors } });
}

/** "commands/x.md:3: message" */
export function describeProblem(problem: PluginProblem): string {
  const where = problem.file === "." ? "" : `${problem.file}${problem.line ? `:${problem.line}` : ""}: `;
  return `${where}${problem.message}`;
}

/** outputStyles and lspServers are not used here, but paths they name must still be sound. */
function checkOtherPaths(root: string, manifest: PluginManifest, problems: PluginProblem[]): void {
  if (manifest.outputStyles !== undefined) componentLocations(root, "outputStyles", manifest.outputStyles, "", problems);
  const lsp = manifest.lspServers;
  if (typeof lsp === "string" || Array.isArray(lsp)) componentLocations(root, "lspServers", lsp as string | string[], "", problems);
}

import path from "node:path";
import { describeProblem } from "../load-plugin.js";
import type { LoadedPlugin } from "../plugin-types.js";
import { isPluginEnabled, type PluginSettingsDocument, type PluginTrust } from "./plugin-enablement.js";
import { skillContainerPrefix } from "./skill-container-prefix.js";

/** One folder the skills loader searches, in the skills package's SkillSource shape. */
export interface PluginSkillSource {
  readonly category: `plugin:${string}`;
  readonly root: string;
  /** Under the container path: "plugins/<plugin>" for the plugin's skills/ folder, "plugins/<plugin>/<path>" for another. */
  readonly containerPrefix: string;
  /** Set when the plugin is disabled or has errors: its skills are listed, switched off, with this reason. */
  readonly disabledReason?: string;
  /** The plugin is trusted (`plugins.<name>.trusted`): its skills are, unless their own setting says otherwise. */
  readonly trusted?: boolean;
  /** The plugin's scripts are approved for every thread (`plugins.<name>.scripts_approved`). */
  readonly scriptsApproved?: boolean;
  /** The folder is itself one skill (a manifest `skills` path naming one skill folder). */
  readonly single?: boolean;
}

/**
 * One skills-loader source per skills folder of `plugin`; `disabledReason` switches them all off,
 * `trust` (see pluginTrust) carries the plugin's trust to its skills.
 */
export function pluginSkillSources(plugin: LoadedPlugin, disabledReason?: string, trust?: PluginTrust): PluginSkillSource[] {
  return plugin.skillRoots.map((relative) => ({
    category: `plugin:${plugin.name}` as const,
    root: path.join(plugin.root, relative),
    containerPrefix: skillContainerPrefix(plugin.name, relative),
    ...(plugin.singleSkillRoots.includes(relative) ? { single: true } : {}),
    ...(disabledReason === undefined ? {} : { disabledReason }),
    ...(trust?.trusted ? { trusted: true } : {}),
    ...(trust?.scriptsApproved ? { scriptsApproved: true } : {}),
  }));
}

/**
 * Why a plugin's skills are not in use, or undefined when they are: the plugin is switched off
 * in the store, or has errors (the agent leaves such a plugin out; the first error is named).
 */
export function pluginDisabledReason(plugin: LoadedPlugin, document: PluginSettingsDocument): string | undefined {
  const error = plugin.problems.find((problem) => problem.severity === "error");
  if (error) return `the plugin '${plugin.name}' has errors: ${describeProblem(error)}`;
  if (!isPluginEnabled(document, plugin.name)) return `the plugin '${plugin.name}' is disabled`;
  return undefined;
}

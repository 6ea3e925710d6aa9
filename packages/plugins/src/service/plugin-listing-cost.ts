import path from "node:path";
import { listingCost, type ListingCost } from "@thinktank/skills";
import { slashCommandLines } from "../commands/render-slash-commands.js";
import { SlashCommands } from "../commands/slash-commands.js";
import type { LoadedPlugin } from "../plugin-types.js";
import { skillContainerPrefix } from "../snapshot/skill-container-prefix.js";

export interface PluginListingCostOptions {
  /** The token counter (@thinktank/mcp's countTokens: o200k, as the agent's listing counts). */
  readonly countTokens: (text: string) => number;
  /** Virtual root of skills as the model sees them. @default "/mnt/skills" */
  readonly containerPath?: string;
}

/**
 * What a plugin would add to every request once enabled, in the full and the compact listing
 * (listingCost of @thinktank/skills over its skills, commands and sub-agents): shown before it is
 * installed (a marketplace entry) and for an installed plugin. Its skills the model may use
 * (not `disable-model-invocation`) at their `/mnt/skills/plugins/...` locations; its commands, and
 * its skills only the user may run, as the full `<slash_commands>` describes them.
 */
export function pluginListingCost(plugin: LoadedPlugin, options: PluginListingCostOptions): ListingCost {
  const containerPath = options.containerPath ?? "/mnt/skills";
  const skills = plugin.skills.map((skill) => {
    const root = plugin.skillRoots.find((r) => skill.dir === r || skill.dir.startsWith(`${r}/`)) ?? "skills";
    const inside = skill.dir.slice(root.length + 1);
    return {
      name: skill.name,
      description: skill.description,
      containerPath: path.posix.join(containerPath, skillContainerPrefix(plugin.name, root), inside, "SKILL.md"),
      disableModelInvocation: skill.frontmatter["disable-model-invocation"] === true,
    };
  });
  const hidden = new Set(skills.filter((skill) => skill.disableModelInvocation).map((skill) => skill.name));
  // Without a skills snapshot every skill entry would be described; only those the skill list leaves out are.
  const entries = new SlashCommands([plugin]).entries.filter((entry) => entry.kind === "command" || hidden.has(entry.name));
  const agents = plugin.agents.map((agent) => ({ identity: `plugin:${plugin.name}:${agent.name}`, name: agent.name, description: agent.description }));
  return listingCost({ skills, commandLines: slashCommandLines(entries), agents, group: plugin.name }, { countTokens: options.countTokens });
}

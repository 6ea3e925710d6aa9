import { escapeXml } from "../escape-xml.js";
import type { SearchableCommand } from "../search/command-search-index.js";
import { listGroups } from "./listing-groups.js";

export interface RenderCommandIndexOptions {
  /** Whether each new user message carries `<relevant_skills>` (skills.relevant_limit > 0). @default true */
  readonly relevant?: boolean;
  /** Characters the list of plugins may take; the plugins past it are counted together. @default 300 */
  readonly groupBudgetChars?: number;
}

/**
 * The compact `<slash_commands>`: how many slash commands the user can run (plugin commands and
 * user-invocable skills), how they are written, commands per plugin within a budget, and where
 * the model finds them (`<relevant_skills>`, `search_skills` with kind "commands"). Names none, so
 * it stays about the same size however many commands are installed; "" without commands.
 */
export function renderCommandIndex(commands: readonly SearchableCommand[], options: RenderCommandIndexOptions = {}): string {
  if (commands.length === 0) return "";
  const byPlugin = new Map<string, number>();
  for (const command of commands) if (command.plugin !== undefined) byPlugin.set(command.plugin, (byPlugin.get(command.plugin) ?? 0) + 1);
  const own = commands.length - [...byPlugin.values()].reduce((sum, count) => sum + count, 0);
  const groups = new Map<string, number>([...(own > 0 ? [["public and custom skills", own] as const] : []), ...byPlugin]);
  const relevant = options.relevant ?? true;
  return [
    "<slash_commands>",
    `The user can run ${commands.length} slash commands by starting a message with one (you then see the command's instructions instead): /<plugin>:<name> for a plugin's commands and skills, /<name> for public and custom skills and for a name only one plugin uses.`,
    `Commands per group: ${escapeXml(listGroups(groups, options.groupBudgetChars ?? 300))}`,
    `Suggest one when it fits what the user wants: ${relevant ? "<relevant_skills> names the best matches of a message, and " : ""}search_skills(query, kind: "commands") finds any of them.`,
    "</slash_commands>",
  ].join("\n");
}

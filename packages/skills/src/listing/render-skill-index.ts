import { escapeXml } from "../escape-xml.js";
import type { Skill } from "../skill-types.js";
import { listGroups } from "./listing-groups.js";

export interface RenderSkillIndexOptions {
  /** Virtual root the model sees. @default "/mnt/skills" */
  readonly containerPath?: string;
  /** Whether each new user message carries `<relevant_skills>` (skills.relevant_limit > 0). @default true */
  readonly relevant?: boolean;
  /** Characters the list of groups may take; the groups past it are counted together. @default 600 */
  readonly groupBudgetChars?: number;
}

/**
 * The compact `<skill_system>`: how skills work and how to find them (`<relevant_skills>` after
 * each user message, `search_skills`), and how many skills each group holds (public, custom, each
 * plugin), cut to a character budget. No skill is named, so the section stays about the same
 * size for 10 or 10,000 skills, and it depends on nothing but the skills (not on any message):
 * the system prompt stays byte-identical for a thread. Counts the skills the model may use
 * (enabled, not `disable-model-invocation`), as `renderSkillSystem` lists them; "" when none.
 */
export function renderSkillIndex(skills: readonly Skill[], options: RenderSkillIndexOptions = {}): string {
  const containerPath = options.containerPath ?? "/mnt/skills";
  const counts = new Map<string, number>();
  for (const skill of skills) {
    if (!skill.enabled || skill.disableModelInvocation) continue;
    const group = skill.category.startsWith("plugin:") ? skill.category.slice("plugin:".length) : skill.category;
    counts.set(group, (counts.get(group) ?? 0) + 1);
  }
  const total = [...counts.values()].reduce((sum, count) => sum + count, 0);
  if (total === 0) return "";
  const relevant = options.relevant ?? true;
  return [
    "<skill_system>",
    `You have skills: folders of instructions, scripts and reference files that make you better at specific tasks. ${total} are installed, too many to list here, so find them:`,
    ...(relevant ? ["- A user message may end with <relevant_skills>: the installed skills that best match it, each with its location. The user did not write that part."] : []),
    `- search_skills(query) searches every installed skill by task, name or identity${relevant ? "; use it when none of those fits" : ""}, and before saying that no skill exists for something.`,
    "Load a skill progressively, only as far as the task needs:",
    "1. When a request matches a skill, read the skill's SKILL.md at its location with read_file before doing anything else.",
    "2. Follow its instructions. Paths it mentions are relative to the folder that holds its SKILL.md.",
    "3. Read the scripts, references and assets it points to only when a step needs them.",
    "4. If several skills apply, read each of them; if none applies, work without one.",
    `Skills are located at: ${escapeXml(containerPath)} (public/<name>, custom/<name>, plugins/<plugin>/<name>)`,
    `Skills per group: ${escapeXml(listGroups(counts, options.groupBudgetChars ?? 600))}`,
    "</skill_system>",
  ].join("\n");
}

import { escapeXml } from "./escape-xml.js";
import type { Skill } from "./skill-types.js";

export interface RenderSkillSystemOptions {
  /** Virtual root the model sees. @default "/mnt/skills" */
  readonly containerPath?: string;
}

/**
 * The `<skill_system>` section of the system prompt: how to load skills progressively, where
 * they are, and `<available_skills>` with each enabled skill's name, description and
 * location (its virtual SKILL.md path). Disabled skills and skills marked
 * `disable-model-invocation` are left out; every value is XML-escaped; the order is the
 * caller's (the snapshot's deterministic order), so identical input gives identical bytes.
 * Returns "" when no skill is available.
 */
export function renderSkillSystem(skills: readonly Skill[], options: RenderSkillSystemOptions = {}): string {
  const containerPath = options.containerPath ?? "/mnt/skills";
  const entries: string[] = [];
  for (const skill of skills) {
    if (!skill.enabled || skill.disableModelInvocation) continue;
    entries.push(renderSkillEntry(skill));
  }
  if (entries.length === 0) return "";
  return [
    "<skill_system>",
    "You have skills: folders of instructions, scripts and reference files that make you better at specific tasks.",
    "Load them progressively, only as far as the task needs:",
    "1. When a request matches a skill's description, read the skill's SKILL.md at its <location> with read_file before doing anything else.",
    "2. Follow its instructions. Paths it mentions are relative to the folder that holds its SKILL.md.",
    "3. Read the scripts, references and assets it points to only when a step needs them.",
    "4. If several skills apply, read each of them; if none applies, work without one.",
    `Skills are located at: ${escapeXml(containerPath)}`,
    "",
    "<available_skills>",
    ...entries,
    "</available_skills>",
    "</skill_system>",
  ].join("\n");
}

/** One skill's `<skill>` entry of `<available_skills>` (what the skill costs in the full listing). */
export function renderSkillEntry(skill: Pick<Skill, "name" | "description" | "containerPath">): string {
  return `<skill>\n<name>${escapeXml(skill.name)}</name>\n<description>${escapeXml(skill.description)}</description>\n<location>${escapeXml(skill.containerPath)}</location>\n</skill>`;
}

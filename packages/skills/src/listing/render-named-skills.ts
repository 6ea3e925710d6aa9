import { escapeXml } from "../escape-xml.js";

/** A skill offered by name alone: its name and the SKILL.md path the model reads. */
export interface NamedSkillEntry {
  readonly name: string;
  readonly location: string;
}

/**
 * Skills offered by name alone, cheaply: one line per folder, `<folder>/: name, name`, each skill
 * at `<folder>/<name>/SKILL.md` (the heading says so), folders in the order of their best skill
 * and names best first within one. A skill whose location is not `<folder>/<name>/SKILL.md` gets
 * a line of its own with its whole location. Values are XML-escaped; "" lines for no skills.
 */
export function renderNamedSkills(heading: string, skills: readonly NamedSkillEntry[]): string[] {
  if (skills.length === 0) return [];
  const folders = new Map<string, string[]>();
  const irregular: string[] = [];
  for (const skill of skills) {
    const tail = `/${skill.name}/SKILL.md`;
    if (!skill.location.endsWith(tail) || skill.location.length === tail.length) {
      irregular.push(`${escapeXml(skill.name)} (${escapeXml(skill.location)})`);
      continue;
    }
    const folder = skill.location.slice(0, skill.location.length - tail.length + 1);
    folders.set(folder, [...(folders.get(folder) ?? []), skill.name]);
  }
  return [heading, ...[...folders].map(([folder, names]) => `${escapeXml(folder)}: ${names.map(escapeXml).join(", ")}`), ...irregular];
}

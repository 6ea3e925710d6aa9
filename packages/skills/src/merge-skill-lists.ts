import type { ParsedSkill, SkillProblem } from "./skill-types.js";

/**
 * Puts the skills of several sources in one deterministic list: public first, then custom,
 * then a user's own, then plugins by plugin name; by name within a category. Two skills with one identity are
 * never merged: the first by folder path is kept and every other one is reported.
 */
export function mergeSkillLists(lists: readonly (readonly ParsedSkill[])[]): { skills: ParsedSkill[]; problems: SkillProblem[] } {
  const all = lists.flat().sort(compareSkills);
  const seen = new Map<string, ParsedSkill>();
  const skills: ParsedSkill[] = [];
  const problems: SkillProblem[] = [];
  for (const skill of all) {
    const first = seen.get(skill.identity);
    if (first) {
      problems.push({
        reason: "duplicate",
        category: skill.category,
        identity: skill.identity,
        file: skill.file,
        message: `${skill.file}: ${skill.identity} is already defined by ${first.file}; this copy is skipped`,
      });
      continue;
    }
    seen.set(skill.identity, skill);
    skills.push(skill);
  }
  return { skills, problems };
}

function categoryRank(category: string): number {
  return category === "public" ? 0 : category === "custom" ? 1 : category === "user" ? 2 : 3;
}

export function compareSkills(a: ParsedSkill, b: ParsedSkill): number {
  return (
    categoryRank(a.category) - categoryRank(b.category) ||
    compareStrings(a.category, b.category) ||
    compareStrings(a.name, b.name) ||
    compareStrings(a.relativePath, b.relativePath)
  );
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

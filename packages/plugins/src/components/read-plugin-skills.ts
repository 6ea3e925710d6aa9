import fs from "node:fs";
import path from "node:path";
import { parseFrontmatter } from "@thinktank/core";
import type { PluginManifest, PluginProblem, PluginSkill } from "../plugin-types.js";
import { componentLocations } from "./component-paths.js";
import { firstLine, flag, hintText, text, toolList } from "./frontmatter-values.js";

const skillFile = "SKILL.md";
const specName = /^[a-z0-9]+(-[a-z0-9]+)*$/;

export interface PluginSkillsReading {
  readonly skills: PluginSkill[];
  /** The folders skills were found in (relative): each becomes one source for the skills loader. */
  readonly roots: string[];
}

/**
 * The plugin's skills: `<dir>/SKILL.md` one level inside `skills/` (or each manifest `skills` path;
 * a path that itself holds SKILL.md is one skill). SKILL.md files deeper inside a skill are that
 * skill's reference files, listed in `nestedSkillFiles`, not skills of their own. The name is the
 * frontmatter `name` as written (it may differ from the folder or hold `/`; both are warnings).
 */
export function readPluginSkills(root: string, plugin: string, manifest: PluginManifest, problems: PluginProblem[]): PluginSkillsReading {
  const skills: PluginSkill[] = [];
  const roots: string[] = [];
  for (const location of componentLocations(root, "skills", manifest.skills, "skills", problems)) {
    if (location.kind !== "directory") {
      problems.push({ severity: "error", file: location.relative, message: "'skills' paths must be folders" });
      continue;
    }
    roots.push(location.relative);
    const dirs = fs.existsSync(path.join(location.absolute, skillFile))
      ? [location.relative]
      : fs
          .readdirSync(location.absolute, { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => entry.name)
          .sort()
          .map((name) => (location.relative === "." ? name : `${location.relative}/${name}`));
    for (const dir of dirs) {
      if (!fs.existsSync(path.join(root, dir, skillFile))) {
        const deeper = findSkillFiles(path.join(root, dir), dir);
        if (deeper.length > 0) problems.push({ severity: "warning", file: dir, message: `has no ${skillFile} of its own; the ${deeper.length} deeper ${skillFile} file(s) are not loaded as skills` });
        continue;
      }
      const skill = readSkill(root, plugin, dir, problems);
      if (!skill) continue;
      const earlier = skills.find((s) => s.name === skill.name);
      if (earlier) {
        problems.push({ severity: "warning", file: skill.file, message: `skill name '${skill.name}' is already used by ${earlier.file}; this skill is ignored` });
        continue;
      }
      skills.push(skill);
    }
  }
  return { skills, roots };
}

function readSkill(root: string, plugin: string, dir: string, problems: PluginProblem[]): PluginSkill | undefined {
  const file = `${dir}/${skillFile}`;
  const parsed = parseFrontmatter(fs.readFileSync(path.join(root, file), "utf8"));
  if (!parsed.ok) {
    problems.push({ severity: "error", file, message: parsed.problem.message, ...(parsed.problem.line ? { line: parsed.problem.line } : {}) });
    return undefined;
  }
  const data = parsed.data;
  const folder = path.posix.basename(dir);
  const name = text(data.name)?.trim() || folder;
  if (name !== folder) problems.push({ severity: "warning", file, message: `skill name '${name}' differs from its folder '${folder}'; the name is used` });
  if (!specName.test(name)) problems.push({ severity: "warning", file, message: `skill name '${name}' is outside the Agent Skills charset (lowercase letters, digits, '-'); kept as written` });
  const description = text(data.description)?.trim();
  if (!description) problems.push({ severity: "warning", file, message: "has no description; the first line of the body is used" });
  else if (description.length > 1024) problems.push({ severity: "warning", file, message: `description is ${description.length} characters (the Agent Skills limit is 1024)` });
  const hint = hintText(data["argument-hint"]);
  if (hint.rebuilt) problems.push({ severity: "warning", file, message: `argument-hint is not a string in YAML (quote it); shown as ${JSON.stringify(hint.text)}` });
  const allowedTools = toolList(data["allowed-tools"]);
  return {
    plugin,
    name,
    identity: `plugin:${plugin}:${name}`,
    dir,
    file,
    description: description || firstLine(parsed.body),
    userInvocable: flag(data["user-invocable"], true),
    ...(hint.text !== undefined ? { argumentHint: hint.text } : {}),
    ...(allowedTools ? { allowedTools } : {}),
    nestedSkillFiles: findSkillFiles(path.join(root, dir), dir).filter((f) => f !== file),
    frontmatter: data,
    body: parsed.body,
  };
}

/** Every SKILL.md at or below a folder (relative paths, sorted). */
function findSkillFiles(absolute: string, relative: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(absolute, { withFileTypes: true })) {
    if (entry.isDirectory()) found.push(...findSkillFiles(path.join(absolute, entry.name), `${relative}/${entry.name}`));
    else if (entry.isFile() && entry.name === skillFile) found.push(`${relative}/${entry.name}`);
  }
  return found.sort();
}

import fs from "node:fs";
import path from "node:path";
import { parseFrontmatter } from "@thinktank/core";
import type { PluginManifest, PluginProblem, PluginSkill } from "../plugin-types.js";
import { manifestFile } from "../manifest/read-plugin-manifest.js";
import { componentLocations } from "./component-paths.js";
import { firstLine, flag, hintText, text, toolList } from "./frontmatter-values.js";

const skillFile = "SKILL.md";
const specName = /^[a-z0-9]+(-[a-z0-9]+)*$/;

export interface PluginSkillsReading {
  readonly skills: PluginSkill[];
  /** The folders skills were found in (relative): each becomes one source for the skills loader. */
  readonly roots: string[];
}

/** Folders never searched, as in the skills loader: dot-folders and dependency caches. */
function isSkippedFolder(name: string): boolean {
  return name.startsWith(".") || name === "node_modules" || name === "__pycache__";
}

/**
 * The plugin's skills: every `SKILL.md` below `skills/` (or below each manifest `skills` folder),
 * found the way the skills loader finds them, so the API lists what the agent sees. One directly
 * under a skills folder is a top-level skill; one deeper inside another skill's folder is a nested
 * skill (`nested`, with `parentDir`). The name is the frontmatter `name` as written (it may differ
 * from the folder or hold `/`: warnings). A second skill with a name already used is ignored.
 */
export function readPluginSkills(root: string, plugin: string, manifest: PluginManifest, problems: PluginProblem[]): PluginSkillsReading {
  const skills: PluginSkill[] = [];
  const roots: string[] = [];
  for (const location of componentLocations(root, "skills", manifest.skills, "skills", problems)) {
    if (location.kind !== "directory") {
      problems.push({ severity: "error", file: manifestFile, message: `'skills' path ./${location.relative} is a file; it must be a folder of skill folders` });
      continue;
    }
    if (fs.existsSync(path.join(location.absolute, skillFile))) {
      problems.push({ severity: "error", file: manifestFile, message: `'skills' path ./${location.relative} holds a ${skillFile} itself; it must be a folder of skill folders (<name>/${skillFile})` });
      continue;
    }
    roots.push(location.relative);
    for (const found of findSkillFolders(location.absolute, location.relative, undefined)) {
      const skill = readSkill(root, plugin, found.dir, found.parentDir, problems);
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

function readSkill(root: string, plugin: string, dir: string, parentDir: string | undefined, problems: PluginProblem[]): PluginSkill | undefined {
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
    nested: parentDir !== undefined,
    ...(parentDir !== undefined ? { parentDir } : {}),
    frontmatter: data,
    body: parsed.body,
  };
}

/** Folders holding a SKILL.md, depth first in sorted order, each with the nearest skill folder around it. */
function findSkillFolders(absolute: string, relative: string, parentDir: string | undefined): { dir: string; parentDir: string | undefined }[] {
  const found: { dir: string; parentDir: string | undefined }[] = [];
  const entries = fs.readdirSync(absolute, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (!entry.isDirectory() || isSkippedFolder(entry.name)) continue;
    const dir = relative === "." ? entry.name : `${relative}/${entry.name}`;
    const isSkill = fs.existsSync(path.join(absolute, entry.name, skillFile));
    if (isSkill) found.push({ dir, parentDir });
    found.push(...findSkillFolders(path.join(absolute, entry.name), dir, isSkill ? dir : parentDir));
  }
  return found;
}

import fs from "node:fs";
import path from "node:path";
import { parseFrontmatter } from "@thinktank/core";
import { parseSkill } from "@thinktank/skills";
import type { PluginManifest, PluginProblem, PluginSkill } from "../plugin-types.js";
import { manifestFile } from "../manifest/read-plugin-manifest.js";
import { componentLocations } from "./component-paths.js";
import { skillContainerPrefix } from "../snapshot/skill-container-prefix.js";

const skillFile = "SKILL.md";

export interface PluginSkillsReading {
  readonly skills: PluginSkill[];
  /** The folders skills were found in (relative): each becomes one source for the skills loader. */
  readonly roots: string[];
  /** The roots that are themselves one skill folder (a `skills` path naming one skill). */
  readonly singleRoots: string[];
}

/** Folders never searched, as in the skills loader: dot-folders and dependency caches. */
function isSkippedFolder(name: string): boolean {
  return name.startsWith(".") || name === "node_modules" || name === "__pycache__";
}

/**
 * The plugin's skills: every `SKILL.md` below `skills/` (or below each manifest `skills` folder),
 * found the way the skills loader finds them, so the API lists what the agent sees. One directly
 * under a skills folder is a top-level skill; one deeper inside another skill's folder is a nested
 * skill (`nested`, with `parentDir`). Each is read with the skills package's parser: the name is
 * the frontmatter `name` as written (it may differ from the folder or hold `/`: warnings), a skill
 * without a description is skipped (a warning), YAML a strict parser refuses is read line by
 * line (a warning), a parsing bound passed is an error. A second skill with a name already used
 * is ignored. A skills folder that holds a SKILL.md itself is one skill, as Claude Code reads a
 * manifest `skills` path naming one skill folder (a warning).
 */
export function readPluginSkills(root: string, plugin: string, manifest: PluginManifest, problems: PluginProblem[]): PluginSkillsReading {
  const skills: PluginSkill[] = [];
  const roots: string[] = [];
  const singleRoots: string[] = [];
  for (const location of componentLocations(root, "skills", manifest.skills, "skills", problems)) {
    if (location.kind !== "directory") {
      problems.push({ severity: "error", file: manifestFile, message: `'skills' path ./${location.relative} is a file; it must be a folder of skill folders` });
      continue;
    }
    roots.push(location.relative);
    const folders: { dir: string; parentDir: string | undefined }[] = [];
    if (fs.existsSync(path.join(location.absolute, skillFile))) {
      problems.push({
        severity: "warning",
        lenient: true,
        file: manifestFile,
        message: `'skills' path ./${location.relative} is one skill folder, not a folder of skill folders (<name>/${skillFile}); it is read as that one skill`,
      });
      singleRoots.push(location.relative);
      folders.push({ dir: location.relative, parentDir: undefined });
    }
    folders.push(...findSkillFolders(location.absolute, location.relative, folders.length > 0 ? location.relative : undefined));
    for (const found of folders) {
      const skill = readSkill(root, plugin, location.relative, found.dir, found.parentDir, problems);
      if (!skill) continue;
      const earlier = skills.find((s) => s.name === skill.name);
      if (earlier) {
        problems.push({ severity: "warning", file: skill.file, message: `skill name '${skill.name}' is already used by ${earlier.file}; this skill is ignored` });
        continue;
      }
      skills.push(skill);
    }
  }
  return { skills, roots, singleRoots };
}

function readSkill(root: string, plugin: string, skillsRoot: string, dir: string, parentDir: string | undefined, problems: PluginProblem[]): PluginSkill | undefined {
  const file = `${dir}/${skillFile}`;
  const text = fs.readFileSync(path.join(root, file), "utf8");
  // The skills package's parser, so the API lists each skill exactly as the agent loads it.
  const relativePath = path.posix.relative(skillsRoot, dir);
  const source = { category: `plugin:${plugin}` as const, root: path.join(root, skillsRoot), containerPrefix: skillContainerPrefix(plugin, skillsRoot) };
  const parsed = parseSkill(text, { source, relativePath, dir: path.join(root, dir), file: path.join(root, file), containerPath: "/" });
  if (!parsed.ok) {
    const { problem } = parsed;
    const message = problem.message.replace(`${path.join(root, file)}`, "").replace(/^(\s*\(line[^)]*\))?:\s*/, "");
    // Frontmatter past a parsing bound refuses the install; a skill without a description is skipped, as the agent skips it.
    const severity = problem.reason === "invalid-frontmatter" || problem.reason === "unreadable" ? "error" : "warning";
    problems.push({ severity, file, message: severity === "warning" ? `skipped: ${message}` : message, ...(problem.line ? { line: problem.line } : {}) });
    return undefined;
  }
  const skill = parsed.skill;
  // Departures from the Agent Skills spec: loaded, as Claude Code loads them; a strict install refuses them.
  for (const warning of skill.warnings) problems.push({ severity: "warning", lenient: true, file, message: warning });
  const body = parseFrontmatter(text, { lineWise: true });
  return {
    plugin,
    name: skill.name,
    identity: skill.identity,
    dir,
    file,
    description: skill.description,
    userInvocable: skill.userInvocable,
    ...(skill.argumentHint !== undefined ? { argumentHint: skill.argumentHint } : {}),
    ...(skill.allowedTools.length > 0 ? { allowedTools: skill.allowedTools } : {}),
    nested: parentDir !== undefined,
    ...(parentDir !== undefined ? { parentDir } : {}),
    frontmatter: skill.frontmatter,
    body: body.ok ? body.body : "",
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

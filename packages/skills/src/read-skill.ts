import fs from "node:fs";
import path from "node:path";
import { parseFrontmatter, type FrontmatterProblem } from "@thinktank/core";
import { checkSkillFrontmatter, type SkillFieldIssue } from "./check-skill-frontmatter.js";
import { descriptionFromBody } from "./description-from-body.js";
import { skillBodyText, skillOutline } from "./search/skill-outline.js";
import type { ParsedSkill, SkillProblem, SkillSource } from "./skill-types.js";

export type ReadSkillResult = { ok: true; skill: ParsedSkill } | { ok: false; problem: SkillProblem };

/**
 * Reads one SKILL.md leniently, as Claude Code does: it loads, with warnings, whenever a
 * description is usable (a missing or unusable name falls back to the folder's name; YAML a
 * strict parser refuses is read line by line as `key: value`; a missing description, or a
 * missing frontmatter, takes the body's first paragraph). It is skipped, with a problem saying
 * why, when the file cannot be read, its frontmatter passes a parsing bound, or it has neither a
 * description nor a paragraph to take one from.
 */
export async function readSkill(source: SkillSource, relativePath: string, containerPath: string): Promise<ReadSkillResult> {
  return readSkillSync(source, relativePath, containerPath);
}

/**
 * readSkill without the thread-pool round trip: one small file read costs microseconds, and
 * the source index reads hundreds in a row (see SkillSourceIndex).
 */
export function readSkillSync(source: SkillSource, relativePath: string, containerPath: string): ReadSkillResult {
  const dir = relativePath === "" ? source.root : path.join(source.root, ...relativePath.split("/"));
  const file = path.join(dir, "SKILL.md");
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    return { ok: false, problem: { reason: "unreadable", category: source.category, file, message: `${file}: cannot be read (${reason})` } };
  }
  return parseSkill(text, { source, relativePath, dir, file, containerPath });
}

/** The pure half of readSkill: SKILL.md text in, a skill or a problem out. */
export function parseSkill(
  text: string,
  where: { source: SkillSource; relativePath: string; dir: string; file: string; containerPath: string },
): ReadSkillResult {
  const { source, relativePath, dir, file } = where;
  const parsed = parseFrontmatter(text, { lineWise: true });
  if (!parsed.ok) {
    const at = parsed.problem.line ? ` (line ${parsed.problem.line}${parsed.problem.column ? `, column ${parsed.problem.column}` : ""})` : "";
    return {
      ok: false,
      problem: { reason: "invalid-frontmatter", category: source.category, file, message: `${file}${at}: ${parsed.problem.message}`, line: parsed.problem.line, column: parsed.problem.column },
    };
  }
  const { fields, issues } = checkSkillFrontmatter(parsed.hasFrontmatter ? parsed.data : {}, path.basename(dir));
  const description = fields.description ?? descriptionFromBody(parsed.body);
  if (description === undefined) {
    if (!parsed.hasFrontmatter) {
      return { ok: false, problem: { reason: "missing-description", category: source.category, file, message: `${file}: no YAML frontmatter ('---' block with name and description)` } };
    }
    const why = issues.filter((issue) => issue.field === "description").map((issue) => issue.message).join("; ");
    return { ok: false, problem: { reason: "missing-description", category: source.category, file, message: `${file}: ${why}` } };
  }
  const warnings = parsed.hasFrontmatter ? describedIssues(issues, fields.description === undefined) : [noFrontmatterWarning];
  const containerDir = path.posix.join(where.containerPath, source.containerPrefix, relativePath);
  return {
    ok: true,
    skill: {
      identity: `${source.category}:${fields.name}`,
      name: fields.name,
      description,
      category: source.category,
      dir,
      file,
      relativePath,
      containerDir,
      containerPath: `${containerDir}/SKILL.md`,
      license: fields.license,
      compatibility: fields.compatibility,
      allowedTools: fields.allowedTools,
      metadata: fields.metadata,
      argumentHint: fields.argumentHint,
      userInvocable: fields.userInvocable,
      disableModelInvocation: fields.disableModelInvocation,
      whenToUse: fields.whenToUse,
      model: fields.model,
      frontmatter: parsed.data,
      outline: skillOutline(parsed.body),
      bodyText: skillBodyText(parsed.body),
      warnings: [...(parsed.recovered ? [recoveredYamlWarning(parsed.recovered)] : []), ...warnings],
    },
  };
}

/** The warning for frontmatter YAML refused and read line by line instead: where, and why YAML refused it. */
export function recoveredYamlWarning(problem: FrontmatterProblem): string {
  const at = problem.line ? ` (line ${problem.line}${problem.column ? `, column ${problem.column}` : ""})` : "";
  return `SKILL.md${at}: ${problem.message}; read line by line as key: value, as Claude Code does`;
}

/** The warning for a SKILL.md without frontmatter that loads all the same. */
export const noFrontmatterWarning = "SKILL.md has no YAML frontmatter: the name is the folder's and the description the body's first paragraph, as Claude Code does";

/** The issues as warnings; when the description came from the body, its issues say so. */
export function describedIssues(issues: readonly SkillFieldIssue[], fromBody: boolean): string[] {
  return issues.map((issue) => (fromBody && issue.field === "description" ? `${issue.message}: the body's first paragraph is used, as Claude Code does` : issue.message));
}

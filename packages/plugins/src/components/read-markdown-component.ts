import fs from "node:fs";
import { parseFrontmatter } from "@thinktank/core";
import type { PluginProblem } from "../plugin-types.js";
import type { ComponentLocation } from "./component-paths.js";

export interface MarkdownComponent {
  readonly file: string;
  readonly frontmatter: Record<string, unknown>;
  readonly body: string;
}

/**
 * Reads a command or agent file with the one frontmatter parser. YAML a strict parser refuses
 * (an unquoted `: ` in a one-line description full of `<example>` text) is read line by line, as
 * Claude Code reads it, with a warning; frontmatter past a parsing bound is an error problem
 * naming the file and line (the file is skipped); a file without frontmatter is fine.
 */
export function readMarkdownComponent(location: ComponentLocation, problems: PluginProblem[]): MarkdownComponent | undefined {
  let text: string;
  try {
    text = fs.readFileSync(location.absolute, "utf8");
  } catch (error) {
    problems.push({ severity: "error", file: location.relative, message: `cannot be read: ${(error as Error).message}` });
    return undefined;
  }
  const parsed = parseFrontmatter(text, { lineWise: true });
  if (!parsed.ok) {
    problems.push({ severity: "error", file: location.relative, message: parsed.problem.message, ...(parsed.problem.line ? { line: parsed.problem.line } : {}) });
    return undefined;
  }
  if (parsed.recovered) {
    const { message, line } = parsed.recovered;
    problems.push({ severity: "warning", lenient: true, file: location.relative, message: `${message}; read line by line as key: value, as Claude Code does`, ...(line ? { line } : {}) });
  }
  return { file: location.relative, frontmatter: parsed.data, body: parsed.body };
}

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
 * Reads a command or agent file with the one frontmatter parser. Malformed frontmatter is an
 * error problem naming the file and line (the file is skipped); a file without frontmatter is fine.
 */
export function readMarkdownComponent(location: ComponentLocation, problems: PluginProblem[]): MarkdownComponent | undefined {
  let text: string;
  try {
    text = fs.readFileSync(location.absolute, "utf8");
  } catch (error) {
    problems.push({ severity: "error", file: location.relative, message: `cannot be read: ${(error as Error).message}` });
    return undefined;
  }
  const parsed = parseFrontmatter(text);
  if (!parsed.ok) {
    problems.push({ severity: "error", file: location.relative, message: parsed.problem.message, ...(parsed.problem.line ? { line: parsed.problem.line } : {}) });
    return undefined;
  }
  return { file: location.relative, frontmatter: parsed.data, body: parsed.body };
}

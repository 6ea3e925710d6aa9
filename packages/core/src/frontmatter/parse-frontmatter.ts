import { CORE_SCHEMA, load as parseYaml, YAMLException } from "js-yaml";
import { findFrontmatterExcess, frontmatterLimits } from "./frontmatter-limits.js";
import { readFrontmatterLines } from "./read-frontmatter-lines.js";

export interface FrontmatterProblem {
  /** INVALID_YAML: not well-formed; FRONTMATTER_TOO_COMPLEX: past a bound of frontmatterLimits. */
  readonly code: "INVALID_YAML" | "FRONTMATTER_TOO_COMPLEX";
  readonly message: string;
  /** 1-based line in the whole file, when the YAML parser knows it. */
  readonly line?: number;
  readonly column?: number;
}

export type FrontmatterResult =
  | {
      ok: true;
      data: Record<string, unknown>;
      body: string;
      hasFrontmatter: boolean;
      /** Set when the YAML was refused and the block was read line by line instead (the `lineWise` option): why YAML refused it. */
      recovered?: FrontmatterProblem;
    }
  | { ok: false; problem: FrontmatterProblem; body: string };

export interface ParseFrontmatterOptions {
  /**
   * When the block is not well-formed YAML, read it line by line as `key: value` (see
   * readFrontmatterLines) instead of failing, and say so in `recovered`. What Claude Code loads,
   * e.g. an unquoted `: ` inside a one-line description; bounds still refuse (never recovered).
   * @default false
   */
  readonly lineWise?: boolean;
}

const opening = /^\uFEFF?---[ \t]*\r?\n/;
const closing = /(?:^|\r?\n)---[ \t]*(?:\r?\n|$)/;
// js-yaml's own bounds (aliases, nesting, merge keys) report in this form: "nesting exceeded maxDepth (20)".
const parserBound = /exceeded max[A-Za-z]+ \(/;

/**
 * The one frontmatter parser: skills (SKILL.md), plugin commands and agents all go through it.
 * YAML is read with js-yaml's core schema (no timestamps or binary), so values come out as
 * plain strings, numbers, booleans, lists and maps, and multi-line (`>`, `|`) scalars exactly
 * as YAML defines them. A file without frontmatter is `ok` with empty data; a malformed block
 * reports the line and column in the whole file.
 *
 * Every block is held to frontmatterLimits (size, aliases, depth, and the size of the tree once
 * aliases are expanded), so any file parses in bounded time and memory, and whatever the data
 * goes on to (validation, JSON responses, copies) stays as cheap. A block past a bound is a
 * FRONTMATTER_TOO_COMPLEX problem. With `lineWise`, a block YAML refuses is read line by line
 * under the same bounds (a lenient reading for loaders; strict checks leave it off).
 */
export function parseFrontmatter(text: string, options: ParseFrontmatterOptions = {}): FrontmatterResult {
  const open = opening.exec(text);
  if (!open) return { ok: true, data: {}, body: text.replace(/^\uFEFF/, ""), hasFrontmatter: false };
  const rest = text.slice(open[0].length);
  const close = closing.exec(rest);
  if (!close) {
    return { ok: false, problem: { code: "INVALID_YAML", message: "frontmatter starts with '---' but has no closing '---' line", line: 1, column: 1 }, body: "" };
  }
  const yamlText = rest.slice(0, close.index);
  const body = rest.slice(close.index + close[0].length);
  const bytes = Buffer.byteLength(yamlText, "utf8");
  if (bytes > frontmatterLimits.maxBytes) return tooComplex(`it is ${bytes} bytes, more than ${frontmatterLimits.maxBytes}`, body);
  if (stripComments(yamlText).trim() === "") {
    return { ok: true, data: {}, body, hasFrontmatter: true };
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(yamlText, { schema: CORE_SCHEMA, maxAliases: frontmatterLimits.maxAliases, maxDepth: frontmatterLimits.maxDepth });
  } catch (error) {
    if (error instanceof YAMLException) {
      const line = error.mark ? error.mark.line + 2 : undefined; // +1 for 1-based, +1 for the opening '---'
      const column = error.mark ? error.mark.column + 1 : undefined;
      if (parserBound.test(error.reason)) return tooComplex(error.reason, body, line, column);
      const problem: FrontmatterProblem = { code: "INVALID_YAML", message: `invalid YAML in frontmatter: ${error.reason}`, line, column };
      if (!options.lineWise) return { ok: false, problem, body };
      const data = readFrontmatterLines(yamlText);
      if (!data) return tooComplex("read line by line, it has more values or text than the bounds allow", body);
      return { ok: true, data, body, hasFrontmatter: true, recovered: problem };
    }
    throw error;
  }
  if (parsed === undefined || parsed === null) return { ok: true, data: {}, body, hasFrontmatter: true };
  if (typeof parsed !== "object" || Array.isArray(parsed)) {
    return { ok: false, problem: { code: "INVALID_YAML", message: "frontmatter must be a mapping of keys to values", line: 2, column: 1 }, body };
  }
  const excess = findFrontmatterExcess(parsed);
  if (excess) return tooComplex(excess, body);
  return { ok: true, data: parsed as Record<string, unknown>, body, hasFrontmatter: true };
}

function tooComplex(why: string, body: string, line?: number, column?: number): FrontmatterResult {
  return { ok: false, problem: { code: "FRONTMATTER_TOO_COMPLEX", message: `frontmatter is too complex: ${why}`, line, column }, body };
}

/** js-yaml 5 refuses an empty document, which an empty frontmatter block is. */
function stripComments(yamlText: string): string {
  return yamlText
    .split(/\r?\n/)
    .filter((line) => !/^\s*#/.test(line))
    .join("\n");
}

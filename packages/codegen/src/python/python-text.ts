import type { SchemaAnnotations } from "../schema/schema-annotations.js";

/** Python's hard keywords: they cannot name a TypedDict field in class syntax. */
const pythonKeywords = new Set([
  "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
  "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
  "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
]);

/**
 * True when a key can be a field in `class X(TypedDict)` syntax: an ASCII identifier (non-ASCII
 * ones are NFKC-normalised by Python, which would change the key), not a keyword, and not `__x`
 * (which class bodies mangle to `_X__x`).
 */
export function isPythonFieldName(key: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) && !pythonKeywords.has(key) && !key.startsWith("__");
}

/** A Python string literal for any text (JSON string syntax is valid Python for every string). */
export function pythonString(text: string): string {
  return JSON.stringify(text);
}

/**
 * A docstring block from lines of text, indented by `indent`. Backslashes, triple quotes, a
 * trailing quote and control characters are escaped, so any description is safe to embed.
 */
export function pythonDocstring(lines: readonly string[], indent: string): string[] {
  const text = lines
    .join("\n")
    .replace(/\\/g, "\\\\")
    .replace(/"""/g, '\\"\\"\\"')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`)
    .replace(/"$/, '\\"');
  const body = text.split("\n").map((line) => (line.trim() === "" ? "" : `${indent}${line.trimEnd()}`));
  if (body.length === 1) return [`${indent}"""${(body[0] as string).trimStart()}"""`];
  return [`${indent}"""${(body[0] as string).trimStart()}`, ...body.slice(1), `${indent}"""`];
}

/** One sentence of a field's constraints: `Default: 10. Minimum: 1. Format: uri.` */
export function constraintSentence(docs: SchemaAnnotations): string {
  const parts = docs.tags.map(([tag, value]) => `${tag.charAt(0).toUpperCase()}${tag.slice(1)}: ${value.length > 300 ? `${value.slice(0, 300)}…` : value}.`);
  if (docs.deprecated) parts.push("Deprecated.");
  return parts.join(" ");
}

/** Lines split on every line terminator Python or JavaScript knows. */
export function textLines(text: string): string[] {
  return text.split(/\r\n|\r|\n|\u2028|\u2029|\u0085|\u000b|\u000c/);
}

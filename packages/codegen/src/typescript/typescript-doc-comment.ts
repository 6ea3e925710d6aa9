import type { SchemaAnnotations } from "../schema/schema-annotations.js";

/**
 * A TSDoc block for a schema's annotations, as lines indented by `indent`; [] when there is
 * nothing to say. Text that would end the comment (`*​/`) is escaped everywhere, and free text
 * that would start a tag (`@` at a line start) is escaped too, so any description is safe to embed.
 * `tagLines` are trusted TSDoc tags (`@param input ...`) added after the schema's own.
 */
export function typeScriptDocComment(docs: SchemaAnnotations, indent: string, textLines: readonly string[] = [], tagLines: readonly string[] = []): string[] {
  const text: string[] = [];
  if (docs.title && docs.title !== docs.description) text.push(docs.title);
  if (docs.description) text.push(...(text.length > 0 ? ["", docs.description] : [docs.description]));
  if (textLines.length > 0) text.push(...(text.length > 0 ? ["", ...textLines] : textLines));
  const tags = docs.tags.map(([tag, value]) => `@${tag} ${truncate(value)}`);
  if (docs.deprecated) tags.push("@deprecated");
  tags.push(...tagLines);
  const lines = [
    ...splitLines(text).map((line) => escapeComment(line).replace(/^(\s*)@/, "$1\\@")),
    ...splitLines(tags).map(escapeComment),
  ].map((line) => line.trimEnd());
  if (lines.length === 0) return [];
  if (lines.length === 1 && (lines[0] as string).length <= 100) return [`${indent}/** ${lines[0]} */`];
  return [`${indent}/**`, ...lines.map((line) => (line === "" ? `${indent} *` : `${indent} * ${line}`)), `${indent} */`];
}

function splitLines(texts: readonly string[]): string[] {
  return texts.flatMap((text) => text.split(/\r\n|\r|\n|\u2028|\u2029/));
}

function escapeComment(line: string): string {
  return line.replace(/\*\//g, "*\\/");
}

/** Long defaults and examples are cut: the doc is read by a model with a token budget. */
function truncate(value: string): string {
  return value.length > 300 ? `${value.slice(0, 300)}…` : value;
}

import { frontmatterLimits, type FrontmatterLimits } from "./frontmatter-limits.js";

const keyLine = /^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*))?$/;
const blockIndicator = /^[|>][+-]?[1-9]?$/;
// Keys that would reach Object.prototype if assigned on a plain object.
const unsafeKeys = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Reads frontmatter that a strict YAML parser refuses the way Claude Code does: one top-level
 * `key: value` per line, the value being the rest of the line as written (so an unquoted
 * `description: Use when... <example>user: "x"</example>` keeps all its colons). Indented
 * lines after a key continue it: `- item` lines make a list, `name: value` lines a map of
 * strings, anything else more text (joined with newlines after `|`, with spaces otherwise).
 * Matching surrounding quotes are removed; `true` and `false` become booleans.
 *
 * Bounded like the strict parser: the caller has already held the block to `maxBytes`, and
 * here the values and the characters kept are counted against `maxNodes` and `maxTextLength`
 * (undefined past either: the caller reports the block as too complex). One pass, no
 * backtracking: linear in the size of the block.
 */
export function readFrontmatterLines(yamlText: string, limits: FrontmatterLimits = frontmatterLimits): Record<string, unknown> | undefined {
  const data: Record<string, unknown> = {};
  let nodes = 1;
  let characters = 0;
  let current: { key: string; style: "text" | "literal" | "folded"; lines: string[]; items: string[]; map: Record<string, string> } | undefined;

  const finish = (): void => {
    if (!current) return;
    const { key, style, lines, items, map } = current;
    let value: unknown;
    if (items.length > 0 && lines.length === 0) value = items;
    else if (Object.keys(map).length > 0 && lines.length === 0) value = map;
    else {
      const joined = style === "literal" ? `${lines.join("\n")}\n` : lines.join(" ").trim();
      value = style === "text" ? scalar(joined) : joined;
    }
    if (!Object.hasOwn(data, key)) data[key] = value;
    current = undefined;
  };

  for (const raw of yamlText.split(/\r?\n/)) {
    const indented = /^[ \t]/.test(raw);
    const line = raw.trim();
    if (!indented || !current) {
      if (line === "" || line.startsWith("#")) continue;
      const match = keyLine.exec(raw.trimEnd());
      if (match) {
        finish();
        const key = match[1] as string;
        const rest = (match[2] ?? "").trim();
        nodes += 2;
        characters += key.length + rest.length;
        if (nodes > limits.maxNodes || characters > limits.maxTextLength) return undefined;
        if (unsafeKeys.has(key)) continue;
        const block = blockIndicator.test(rest);
        current = { key, style: block ? (rest.startsWith("|") ? "literal" : "folded") : "text", lines: block || rest === "" ? [] : [rest], items: [], map: {} };
        continue;
      }
      if (!current) continue; // a stray line before any key tells nothing
    }
    // A continuation of the current key (indented, or a plain line a strict parser also refused).
    characters += line.length;
    nodes += 1;
    if (nodes > limits.maxNodes || characters > limits.maxTextLength) return undefined;
    if (current.style !== "text") {
      current.lines.push(line);
      continue;
    }
    if (line === "") continue;
    const item = /^-[ \t]+(.*)$/.exec(line);
    const entry = keyLine.exec(line);
    if (current.lines.length === 0 && item) current.items.push(String(scalar((item[1] as string).trim())));
    else if (current.lines.length === 0 && current.items.length === 0 && entry && !unsafeKeys.has(entry[1] as string)) current.map[entry[1] as string] = String(scalar((entry[2] ?? "").trim()));
    else current.lines.push(line);
  }
  finish();
  return data;
}

/** A one-line value: quotes that wrap it whole are removed; true/false are booleans; anything else is text as written. */
function scalar(text: string): unknown {
  if (text === "true") return true;
  if (text === "false") return false;
  if (text.length >= 2 && ((text.startsWith('"') && text.endsWith('"')) || (text.startsWith("'") && text.endsWith("'")))) {
    const inner = text.slice(1, -1);
    return text.startsWith('"') ? inner.replace(/\\(["\\])/g, "$1") : inner.replaceAll("''", "'");
  }
  return text;
}

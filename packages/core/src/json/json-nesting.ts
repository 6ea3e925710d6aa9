/**
 * Bounds on how deep JSON may nest. Every walk over a document (structuredClone, JSON.stringify,
 * masking, schema validation, LangChain's deserializer) recurses once per level, so a body of a
 * few hundred KB nested a few thousand levels deep overflows the stack wherever it goes next: a
 * 500, or worse, a stored value that breaks every later read. Real documents nest a few levels.
 */
export const jsonNestingLimits = Object.freeze({
  /** One entry of extensions_config.json, or one JSON file of a plugin (plugin.json, .mcp.json, hooks, marketplace.json). */
  document: 64,
  /** A request body of either service (LangGraph state values and tool arguments can nest more than config). */
  requestBody: 256,
});

/**
 * The deepest nesting of `[` and `{` in JSON text (0 for a scalar), counted without parsing and
 * stopping as soon as it passes `stopAbove` (then that depth is returned). Linear in the text;
 * brackets inside strings do not count. Malformed text gives a number too: parse it afterwards.
 */
export function jsonTextNesting(text: string, stopAbove = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index += 1; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x5b || code === 0x7b) {
      depth += 1;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > stopAbove) return deepest;
      }
    } else if (code === 0x5d || code === 0x7d) {
      depth -= 1;
    }
  }
  return deepest;
}

/**
 * True when a parsed value nests arrays and objects more than `limit` levels deep (the value
 * itself, if an array or object, is level 1). Iterative, so it cannot overflow the stack itself,
 * and it stops at the first value past the limit. A cycle counts as too deep.
 */
export function valueNestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop() as [unknown, number];
    if (current === null || typeof current !== "object") continue;
    if (depth > limit) return true;
    const children = Array.isArray(current) ? current : Object.values(current as Record<string, unknown>);
    for (const child of children) if (child !== null && typeof child === "object") pending.push([child, depth + 1]);
  }
  return false;
}

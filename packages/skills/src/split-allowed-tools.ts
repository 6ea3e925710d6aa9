/**
 * Splits an `allowed-tools` value into tool patterns. Accepts a YAML list, or a string
 * separated by spaces (the Agent Skills spec) or commas (common in the wild). Separators
 * inside parentheses belong to the pattern: "Bash(git log:*), Read" is two tools.
 */
export function splitAllowedTools(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === "string").map((item) => item.trim()).filter(Boolean);
  if (typeof value !== "string") return [];
  const tools: string[] = [];
  let current = "";
  let depth = 0;
  for (const character of value) {
    if (character === "(") depth++;
    if (character === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (character === "," || /\s/.test(character))) {
      if (current) tools.push(current);
      current = "";
      continue;
    }
    current += character;
  }
  if (current) tools.push(current);
  return tools;
}

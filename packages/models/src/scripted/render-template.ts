import type { ConversationView } from "./conversation-view.js";

/**
 * Fills `{{...}}` placeholders from the conversation:
 * - `{{lastHuman}}`, `{{userTyped}}`, `{{step}}`, `{{lastToolName}}`, `{{lastToolResult}}`
 * - `{{match.N}}`: group N of the rule's `user_typed` regex, else its `last_human` regex (0 is the whole match)
 * - `{{toolResult.NAME}}`: the latest result of tool NAME in this turn
 * - `.json.PATH` after a tool result picks from its JSON text: `{{lastToolResult.json.items[0].id}}`
 * An unknown or unresolvable placeholder stays as written, so a typo shows in the output.
 */
export function renderTemplate(template: string, view: ConversationView, groups: readonly string[]): unknown {
  const whole = /^\{\{\s*([^{}]+?)\s*\}\}$/.exec(template);
  if (whole) {
    // A value that is one placeholder keeps the picked JSON type (number, object, ...).
    const value = resolve(whole[1] as string, view, groups);
    return value === undefined ? template : value;
  }
  return template.replace(/\{\{\s*([^{}]+?)\s*\}\}/g, (placeholder, expression: string) => {
    const value = resolve(expression, view, groups);
    if (value === undefined) return placeholder;
    return typeof value === "string" ? value : JSON.stringify(value);
  });
}

/** Renders every string inside a JSON-like value (keys are left alone). */
export function renderDeep(value: unknown, view: ConversationView, groups: readonly string[]): unknown {
  if (typeof value === "string") return renderTemplate(value, view, groups);
  if (Array.isArray(value)) return value.map((item) => renderDeep(item, view, groups));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, renderDeep(child, view, groups)]));
  }
  return value;
}

function resolve(expression: string, view: ConversationView, groups: readonly string[]): unknown {
  const lastTool = view.toolResults.at(-1);
  if (expression === "lastHuman") return view.lastHuman;
  if (expression === "userTyped") return view.userTyped;
  if (expression === "step") return view.step;
  if (expression === "lastToolName") return lastTool?.name;
  const matchGroup = /^match\.(\d+)$/.exec(expression);
  if (matchGroup) return groups[Number(matchGroup[1])];
  const toolReference = /^(lastToolResult|toolResult\.([A-Za-z0-9_.:-]+?))(?:\.json(?:\.(.+))?)?$/.exec(expression);
  if (!toolReference) return undefined;
  const [, head, toolName, path] = toolReference;
  const result = head === "lastToolResult" ? lastTool : view.toolResults.findLast((r) => r.name === toolName);
  if (!result) return undefined;
  if (!expression.slice((head as string).length).startsWith(".json")) return result.text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(result.text);
  } catch {
    return undefined;
  }
  return path === undefined ? parsed : pick(parsed, path);
}

/** `a.b[0].c` → value, or undefined when any step is missing. */
function pick(value: unknown, path: string): unknown {
  const steps = path.match(/[^.[\]]+/g) ?? [];
  let current = value;
  for (const step of steps) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[step];
  }
  return current;
}

/**
 * Normalises the frontmatter values of commands, agents and skills that real plugins write in
 * more than one way, so every consumer sees one shape.
 */

/**
 * An argument hint as text. `argument-hint: [date range, defaults to next 7 days]` is a YAML flow
 * list; the author meant the brackets literally, so a list is shown as `[a, b]` again.
 * Returns whether the value had to be rebuilt, for a warning.
 */
export function hintText(value: unknown): { text: string | undefined; rebuilt: boolean } {
  if (value === undefined || value === null) return { text: undefined, rebuilt: false };
  if (typeof value === "string") return { text: value, rebuilt: false };
  if (Array.isArray(value)) return { text: `[${value.map((item) => (typeof item === "string" ? item : JSON.stringify(item))).join(", ")}]`, rebuilt: true };
  if (typeof value === "object") return { text: JSON.stringify(value), rebuilt: true };
  return { text: String(value), rebuilt: true };
}

/** `true`, `"true"`, `"yes"` → true; anything else false. */
export function flag(value: unknown, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value === "boolean") return value;
  if (typeof value === "string") {
    const lowered = value.trim().toLowerCase();
    if (["true", "yes", "on", "1"].includes(lowered)) return true;
    if (["false", "no", "off", "0"].includes(lowered)) return false;
  }
  return fallback;
}

/** A string value, or undefined (numbers are turned into text, other shapes dropped). */
export function text(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/** The first non-empty line of a Markdown body, without heading marks: a description of last resort. */
export function firstLine(body: string): string {
  for (const line of body.split(/\r?\n/)) {
    const cleaned = line.replace(/^#+\s*/, "").replace(/^>\s*/, "").trim();
    if (cleaned !== "") return cleaned.length > 200 ? `${cleaned.slice(0, 197)}...` : cleaned;
  }
  return "";
}

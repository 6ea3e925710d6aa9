import { schemaObject } from "./json-schema.js";

/** The documentation a schema carries, in the order both languages print it. */
export interface SchemaAnnotations {
  readonly title?: string;
  readonly description?: string;
  /** `[tag, value]` pairs: `["default", "10"]`, `["minimum", "1"]`, `["format", "uri"]`; values are JSON text. */
  readonly tags: readonly (readonly [string, string])[];
  readonly deprecated: boolean;
}

/** The tags both languages print, in this order; each value is read from the keyword of the same name. */
const tagOrder = [
  "default", "enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
  "minItems", "maxItems", "minProperties", "maxProperties", "pattern", "format", "examples",
] as const;
const tagPosition: ReadonlyMap<string, number> = new Map(tagOrder.map((tag, position) => [tag, position]));
const noAnnotations: SchemaAnnotations = { tags: [], deprecated: false };

/**
 * Collects what a reader needs beyond the type: description, default, enum, numeric bounds,
 * lengths, pattern and format. Each value is printed as JSON so strings keep their quotes.
 * It walks the schema's own keys once (schemas have a handful), which matters over 2,000 tools.
 */
export function schemaAnnotations(schema: unknown): SchemaAnnotations {
  const object = schemaObject(schema);
  if (!object) return noAnnotations;
  const found: ([string, string] | undefined)[] = [];
  let title: string | undefined;
  let description: string | undefined;
  let deprecated = false;
  for (const key in object) {
    const value = object[key];
    if (key === "description") {
      if (typeof value === "string" && value.trim() !== "") description = value.trim();
      continue;
    }
    if (key === "title") {
      if (typeof value === "string" && value.trim() !== "") title = value.trim();
      continue;
    }
    if (key === "deprecated") {
      deprecated = value === true;
      continue;
    }
    const position = tagPosition.get(key);
    if (position === undefined) continue;
    const tag = tag_(key, value);
    if (tag) found[position] = tag;
  }
  const tags = found.filter((tag): tag is [string, string] => tag !== undefined);
  if (tags.length === 0 && title === undefined && description === undefined && !deprecated) return noAnnotations;
  return { ...(title !== undefined ? { title } : {}), ...(description !== undefined ? { description } : {}), tags, deprecated };
}

function tag_(key: string, value: unknown): [string, string] | undefined {
  switch (key) {
    case "default":
      return ["default", json(value)];
    case "enum":
      return Array.isArray(value) ? ["enum", value.map(json).join(", ")] : undefined;
    case "pattern":
    case "format":
      return typeof value === "string" ? [key, value] : undefined;
    case "examples":
      return Array.isArray(value) && value.length > 0 ? ["example", json(value[0])] : undefined;
    default:
      return typeof value === "number" ? [key, String(value)] : undefined;
  }
}

function json(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text;
}

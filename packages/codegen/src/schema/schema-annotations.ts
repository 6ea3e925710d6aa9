import { schemaObject } from "./json-schema.js";

/** The documentation a schema carries, in the order both languages print it. */
export interface SchemaAnnotations {
  readonly title?: string;
  readonly description?: string;
  /** `[tag, value]` pairs: `["default", "10"]`, `["minimum", "1"]`, `["format", "uri"]`; values are JSON text. */
  readonly tags: readonly (readonly [string, string])[];
  readonly deprecated: boolean;
}

const numericTags = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"] as const;

/**
 * Collects what a reader needs beyond the type: description, default, enum, numeric bounds,
 * lengths, pattern and format. Each value is printed as JSON so strings keep their quotes.
 */
export function schemaAnnotations(schema: unknown): SchemaAnnotations {
  const object = schemaObject(schema);
  if (!object) return { tags: [], deprecated: false };
  const tags: [string, string][] = [];
  if ("default" in object) tags.push(["default", json(object.default)]);
  if (Array.isArray(object.enum)) tags.push(["enum", object.enum.map(json).join(", ")]);
  for (const tag of numericTags) if (typeof object[tag] === "number") tags.push([tag, String(object[tag])]);
  if (typeof object.pattern === "string") tags.push(["pattern", object.pattern]);
  if (typeof object.format === "string") tags.push(["format", object.format]);
  if (Array.isArray(object.examples) && object.examples.length > 0) tags.push(["example", json(object.examples[0])]);
  return {
    ...(typeof object.title === "string" && object.title.trim() !== "" ? { title: object.title.trim() } : {}),
    ...(typeof object.description === "string" && object.description.trim() !== "" ? { description: object.description.trim() } : {}),
    tags,
    deprecated: object.deprecated === true,
  };
}

function json(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text;
}

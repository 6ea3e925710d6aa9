/** A JSON Schema as MCP servers send it: an object (or a boolean schema), read defensively. */
export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

/** A schema object, or undefined for anything else (booleans, arrays, null, strings). */
export function schemaObject(value: unknown): { readonly [keyword: string]: unknown } | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The `type` keyword as a list (`"string"` → `["string"]`, absent → `[]`). */
export function schemaTypes(schema: { readonly [keyword: string]: unknown }): string[] {
  const type = schema.type;
  if (typeof type === "string") return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === "string");
  return [];
}

/** A list-valued keyword (`anyOf`, `oneOf`, `allOf`, `prefixItems`), or [] when absent or malformed. */
/**
 * True when a property's schema declares a `default`. In arguments such a property may be left out
 * even when listed in `required` (schemas from validation libraries with defaults, such as zod's
 * `.default()` in its output mode, list it so; the server fills it in).
 */
export function declaresDefault(schema: unknown): boolean {
  const object = schemaObject(schema);
  return object !== undefined && Object.hasOwn(object, "default");
}

export function schemaList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * Resolves a local `$ref` (`#`, `#/$defs/Name`, `#/properties/a~1b/items`) against the document
 * root. Remote references, anchors and pointers that lead nowhere answer undefined: the caller
 * falls back to the most general type rather than failing a whole server.
 */
export function resolveLocalRef(root: unknown, ref: string): { pointer: string; schema: unknown } | undefined {
  if (!ref.startsWith("#")) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (fragment === "") return { pointer: "", schema: root };
  if (!fragment.startsWith("/")) return undefined;
  let current: unknown = root;
  for (const token of fragment.slice(1).split("/")) {
    const key = token.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(current) && /^(0|[1-9][0-9]*)$/.test(key)) current = current[Number(key)];
    else if (current !== null && typeof current === "object" && !Array.isArray(current) && Object.hasOwn(current, key)) current = (current as Record<string, unknown>)[key];
    else return undefined;
    if (current === undefined) return undefined;
  }
  return { pointer: fragment, schema: current };
}

/** The last readable segment of a pointer, the seed of a type name (`/$defs/user_profile` → `user_profile`). */
export function pointerName(pointer: string): string {
  const tokens = pointer.split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~")).filter((t) => t !== "" && !/^[0-9]+$/.test(t) && !["$defs", "definitions", "properties", "items", "anyOf", "oneOf", "allOf"].includes(t));
  return tokens.at(-1) ?? "Definition";
}

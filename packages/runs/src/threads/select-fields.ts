import { ThinktankError } from "@thinktank/core";

/**
 * The `select` of a thread search, a state or a history page: `value` with only the named fields,
 * each a top-level field of `known`, or (`stateValues`) `values.<key>` for one key of a state's
 * values. A name that is none of them is refused (VALIDATION_FAILED, the field named), never ignored.
 * No select (undefined or empty): the whole value.
 */
export function selectFields<T extends object>(value: T, select: readonly string[] | undefined, known: readonly string[], field: string, stateValues = false): Partial<T> {
  if (!select || select.length === 0) return value;
  const record = value as Record<string, unknown>;
  const result: Record<string, unknown> = {};
  for (const name of select) {
    if (stateValues && name.startsWith("values.")) {
      const key = name.slice("values.".length);
      const values = record.values as Record<string, unknown> | null | undefined;
      const picked = (result.values as Record<string, unknown> | undefined) ?? {};
      if (values && Object.hasOwn(values, key)) picked[key] = values[key];
      result.values = picked;
    } else if (known.includes(name)) {
      result[name] = record[name];
    } else {
      throw new ThinktankError("VALIDATION_FAILED", `${field} names ${JSON.stringify(name)}, which is not one of ${known.join(", ")}${stateValues ? " or values.<key>" : ""}`, { details: { field } });
    }
  }
  return result as Partial<T>;
}

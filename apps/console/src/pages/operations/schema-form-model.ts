// A tool's input schema as form fields, and the filled form back as the tool's arguments. The schema
// comes from whoever registered the tool or runs the server: only its plain shapes become controls
// (strings, numbers, booleans, enums, arrays of those); anything else is edited as JSON text.

export type FieldKind = "text" | "number" | "integer" | "boolean" | "enum" | "list" | "enum-list" | "json";

export interface FormField {
  readonly name: string;
  readonly kind: FieldKind;
  readonly required: boolean;
  readonly description?: string;
  /** Choices of an enum, or of an enum list's items (as the schema gives them). */
  readonly choices?: readonly (string | number | boolean)[];
  /** What a list holds: "string", "number", "integer" or "boolean". */
  readonly itemType?: string;
  /** The initial value: the schema's default, as the control holds it. */
  readonly initial: FieldValue;
}

/** What a control holds: text for text-like fields, a flag for booleans, chosen indexes for enum lists. */
export type FieldValue = string | boolean | readonly number[];

const primitive = new Set(["string", "number", "integer", "boolean"]);

/** The fields of an object schema, in its order; a schema that is not an object gives one JSON field for everything. */
export function formFields(schema: unknown): FormField[] {
  const record = asRecord(schema);
  const properties = asRecord(record.properties);
  const required = new Set(Array.isArray(record.required) ? record.required.filter((entry): entry is string => typeof entry === "string") : []);
  return Object.entries(properties).map(([name, property]) => fieldOf(name, asRecord(property), required.has(name)));
}

function fieldOf(name: string, property: Record<string, unknown>, required: boolean): FormField {
  const description = typeof property.description === "string" ? property.description : undefined;
  const base = { name, required, ...(description ? { description } : {}) };
  const type = typeOf(property);
  const choices = enumOf(property);
  if (choices) return { ...base, kind: "enum", choices, initial: property.default === undefined ? "" : String(choices.findIndex((choice) => choice === property.default)) };
  if (type === "boolean") return { ...base, kind: "boolean", initial: property.default === true };
  if (type === "string") return { ...base, kind: "text", initial: typeof property.default === "string" ? property.default : "" };
  if (type === "number" || type === "integer") return { ...base, kind: type, initial: typeof property.default === "number" ? String(property.default) : "" };
  if (type === "array") {
    const items = asRecord(property.items);
    const itemChoices = enumOf(items);
    if (itemChoices) {
      const initial = Array.isArray(property.default) ? itemChoices.flatMap((choice, index) => ((property.default as unknown[]).includes(choice) ? [index] : [])) : [];
      return { ...base, kind: "enum-list", choices: itemChoices, initial };
    }
    const itemType = typeOf(items);
    if (itemType && primitive.has(itemType)) {
      return { ...base, kind: "list", itemType, initial: Array.isArray(property.default) ? property.default.map(String).join("\n") : "" };
    }
  }
  return { ...base, kind: "json", initial: property.default === undefined ? "" : JSON.stringify(property.default, null, 2) };
}

/** The one JSON type a property names (`["string", "null"]` counts as string). */
function typeOf(property: Record<string, unknown>): string | undefined {
  if (typeof property.type === "string") return property.type;
  if (Array.isArray(property.type)) {
    const named = property.type.filter((entry): entry is string => typeof entry === "string" && entry !== "null");
    return named.length === 1 ? named[0] : undefined;
  }
  return undefined;
}

function enumOf(property: Record<string, unknown>): (string | number | boolean)[] | undefined {
  const values = Array.isArray(property.enum) ? property.enum : property.const !== undefined ? [property.const] : undefined;
  if (!values || values.length === 0) return undefined;
  return values.every((value) => typeof value === "string" || typeof value === "number" || typeof value === "boolean") ? (values as (string | number | boolean)[]) : undefined;
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The arguments a filled form makes, or the first field that cannot be read, with why. */
export type FormOutcome = { readonly ok: true; readonly value: Record<string, unknown> } | { readonly ok: false; readonly field: string; readonly message: string };

/** Reads every field: empty optional fields are left out; a required one left empty is refused (booleans always count). */
export function formArguments(fields: readonly FormField[], values: Readonly<Record<string, FieldValue>>): FormOutcome {
  const result: Record<string, unknown> = {};
  for (const field of fields) {
    const raw = values[field.name] ?? field.initial;
    const read = readField(field, raw);
    if (!read.ok) return { ok: false, field: field.name, message: read.message };
    if (read.value === undefined) {
      if (field.required) return { ok: false, field: field.name, message: `${field.name} is required` };
      continue;
    }
    // Defined, not assigned: a property named __proto__ stays an argument, never the object's prototype.
    Object.defineProperty(result, field.name, { value: read.value, enumerable: true, writable: true, configurable: true });
  }
  return { ok: true, value: result };
}

function readField(field: FormField, raw: FieldValue): { ok: true; value: unknown } | { ok: false; message: string } {
  switch (field.kind) {
    case "boolean":
      return { ok: true, value: raw === true };
    case "enum": {
      if (raw === "") return { ok: true, value: undefined };
      const choice = field.choices?.[Number(raw)];
      return choice === undefined ? { ok: false, message: `${field.name}: pick one of the choices` } : { ok: true, value: choice };
    }
    case "enum-list": {
      const picked = Array.isArray(raw) ? raw.map((index) => field.choices?.[index]).filter((choice) => choice !== undefined) : [];
      return { ok: true, value: picked.length === 0 ? undefined : picked };
    }
    case "text":
      return { ok: true, value: raw === "" ? undefined : String(raw) };
    case "number":
    case "integer":
      return readNumber(field.name, String(raw).trim(), field.kind === "integer");
    case "list": {
      const lines = String(raw).split("\n").map((line) => line.trim()).filter((line) => line !== "");
      if (lines.length === 0) return { ok: true, value: undefined };
      const items: unknown[] = [];
      for (const line of lines) {
        const item = readItem(field, line);
        if (!item.ok) return item;
        items.push(item.value);
      }
      return { ok: true, value: items };
    }
    case "json": {
      const text = String(raw).trim();
      if (text === "") return { ok: true, value: undefined };
      try {
        return { ok: true, value: JSON.parse(text) as unknown };
      } catch (error) {
        return { ok: false, message: `${field.name}: not valid JSON (${(error as Error).message})` };
      }
    }
  }
}

function readItem(field: FormField, line: string): { ok: true; value: unknown } | { ok: false; message: string } {
  if (field.itemType === "string") return { ok: true, value: line };
  if (field.itemType === "boolean") {
    if (line === "true" || line === "false") return { ok: true, value: line === "true" };
    return { ok: false, message: `${field.name}: each line must be true or false, not ${JSON.stringify(line)}` };
  }
  return readNumber(field.name, line, field.itemType === "integer");
}

function readNumber(name: string, text: string, integer: boolean): { ok: true; value: number | undefined } | { ok: false; message: string } {
  if (text === "") return { ok: true, value: undefined };
  const value = Number(text);
  if (!Number.isFinite(value)) return { ok: false, message: `${name}: ${JSON.stringify(text)} is not a number` };
  if (integer && !Number.isInteger(value)) return { ok: false, message: `${name}: ${JSON.stringify(text)} is not a whole number` };
  return { ok: true, value };
}

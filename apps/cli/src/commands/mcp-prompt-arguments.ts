import readline from "node:readline";
import type { Writable } from "node:stream";

/** A JSON Schema property as far as prompting needs it. */
interface PropertySchema {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  items?: { type?: string };
}

export interface PromptArgumentsOptions {
  readonly input: NodeJS.ReadableStream;
  /** Where questions go (stderr, so stdout stays the result). */
  readonly output: Writable;
  /** Values already given (from --args): those parameters are not asked for. @default {} */
  readonly given?: Readonly<Record<string, unknown>>;
}

/**
 * Asks for each parameter of a tool's inputSchema, one line each: required ones are marked `*`
 * and asked again until answered; an empty answer takes the default or leaves an optional
 * parameter out. Answers are typed by the schema: numbers and integers (with bounds), booleans
 * (y/n), enums (a choice by number or value), arrays (JSON, or comma-separated for simple items)
 * and objects (JSON). Resolves with the arguments object; rejects if the input ends first.
 */
export async function promptForArguments(inputSchema: Readonly<Record<string, unknown>>, options: PromptArgumentsOptions): Promise<Record<string, unknown>> {
  const properties = (inputSchema.properties ?? {}) as Record<string, PropertySchema>;
  const required = new Set(Array.isArray(inputSchema.required) ? (inputSchema.required as string[]) : []);
  const result: Record<string, unknown> = { ...options.given };
  const names = Object.keys(properties).filter((name) => !(name in result));
  if (names.length === 0) return result;
  const lines = readline.createInterface({ input: options.input, terminal: false })[Symbol.asyncIterator]();
  try {
    for (const name of names) {
      const schema = properties[name] ?? {};
      const isRequired = required.has(name);
      options.output.write(describeParameter(name, schema, isRequired));
      for (;;) {
        options.output.write(`${name}${isRequired ? "*" : ""}> `);
        const next = await lines.next();
        if (next.done) throw new Error(`input ended before '${name}' was answered`);
        const answer = String(next.value).trim();
        if (answer === "") {
          if (schema.default !== undefined) {
            result[name] = schema.default;
            break;
          }
          if (!isRequired) break;
          options.output.write(`  '${name}' is required\n`);
          continue;
        }
        const parsed = parseAnswer(answer, schema);
        if (parsed.ok) {
          result[name] = parsed.value;
          break;
        }
        options.output.write(`  ${parsed.problem}\n`);
      }
    }
  } finally {
    await lines.return?.();
  }
  return result;
}

function describeParameter(name: string, schema: PropertySchema, isRequired: boolean): string {
  const parts = [`${name}${isRequired ? "*" : ""} (${typeLabel(schema)})`];
  if (schema.description) parts.push(`— ${schema.description.split("\n", 1)[0]}`);
  const lines = [parts.join(" ")];
  if (schema.enum) lines.push(...schema.enum.map((value, index) => `  ${index + 1}) ${JSON.stringify(value)}`));
  if (schema.default !== undefined) lines.push(`  default: ${JSON.stringify(schema.default)} (empty answer)`);
  if (schema.minimum !== undefined || schema.maximum !== undefined) lines.push(`  range: ${schema.minimum ?? "-∞"} .. ${schema.maximum ?? "∞"}`);
  return `${lines.join("\n")}\n`;
}

function typeLabel(schema: PropertySchema): string {
  if (schema.enum) return "one of the choices";
  const type = mainType(schema);
  if (type === "array") return `list${schema.items?.type ? ` of ${schema.items.type}` : ""}: JSON or comma-separated`;
  if (type === "object") return "object: JSON";
  return type ?? "JSON";
}

function mainType(schema: PropertySchema): string | undefined {
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== "null");
  return schema.type;
}

type Parsed = { ok: true; value: unknown } | { ok: false; problem: string };

function parseAnswer(answer: string, schema: PropertySchema): Parsed {
  if (schema.enum) {
    const byNumber = /^\d+$/.test(answer) ? schema.enum[Number(answer) - 1] : undefined;
    if (byNumber !== undefined) return { ok: true, value: byNumber };
    const byValue = schema.enum.find((value) => String(value) === answer);
    if (byValue !== undefined) return { ok: true, value: byValue };
    return { ok: false, problem: `expected one of ${schema.enum.map((v) => JSON.stringify(v)).join(", ")} (or its number), got '${answer}'` };
  }
  switch (mainType(schema)) {
    case "string":
      return { ok: true, value: answer };
    case "number":
    case "integer": {
      const value = Number(answer);
      if (!Number.isFinite(value)) return { ok: false, problem: `expected a number, got '${answer}'` };
      if (mainType(schema) === "integer" && !Number.isInteger(value)) return { ok: false, problem: `expected a whole number, got '${answer}'` };
      if (schema.minimum !== undefined && value < schema.minimum) return { ok: false, problem: `expected at least ${schema.minimum}, got ${value}` };
      if (schema.maximum !== undefined && value > schema.maximum) return { ok: false, problem: `expected at most ${schema.maximum}, got ${value}` };
      return { ok: true, value };
    }
    case "boolean": {
      if (/^(y|yes|true|1)$/i.test(answer)) return { ok: true, value: true };
      if (/^(n|no|false|0)$/i.test(answer)) return { ok: true, value: false };
      return { ok: false, problem: `expected y or n, got '${answer}'` };
    }
    case "array": {
      if (answer.startsWith("[")) return parseJson(answer, (value) => Array.isArray(value), "a JSON list");
      const items = answer.split(",").map((item) => item.trim()).filter(Boolean);
      const itemType = schema.items?.type;
      if (itemType === "number" || itemType === "integer") {
        const numbers = items.map(Number);
        if (numbers.some((n) => !Number.isFinite(n))) return { ok: false, problem: `expected numbers separated by commas, got '${answer}'` };
        return { ok: true, value: numbers };
      }
      return { ok: true, value: items };
    }
    case "object":
      return parseJson(answer, (value) => !!value && typeof value === "object" && !Array.isArray(value), "a JSON object");
    default: {
      // No declared type: JSON when it parses, else the text as it is.
      const json = parseJson(answer, () => true, "JSON");
      return json.ok ? json : { ok: true, value: answer };
    }
  }
}

function parseJson(answer: string, accept: (value: unknown) => boolean, what: string): Parsed {
  try {
    const value: unknown = JSON.parse(answer);
    return accept(value) ? { ok: true, value } : { ok: false, problem: `expected ${what}, got '${answer}'` };
  } catch {
    return { ok: false, problem: `expected ${what}, got '${answer}' (not valid JSON)` };
  }
}

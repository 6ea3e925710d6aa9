import { Ajv } from "ajv";
import type { AnySchema, ErrorObject, ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import * as ajvFormats from "ajv-formats";
import type { ToolProblem } from "./tool-definition.js";

export interface SchemaCompilerOptions {
  /** Compiled validators kept (by schema text). @default 256 */
  readonly cacheSize?: number;
  /** Most problems reported for one value. @default 20 */
  readonly maxProblems?: number;
}

// ajv-formats is CommonJS: under NodeNext its default export sits one level down.
const addFormats = ajvFormats.default.default;
const draft2020 = /json-schema\.org\/draft\/2020-12\/schema/;

/**
 * Compiles the JSON Schemas of registered tools with ajv in strict mode, so a typo in a schema
 * (`"propertys"`, `"type": "strng"`, an unknown `format`, a `required` name no property has) is
 * refused at registration instead of silently accepting anything. Draft-07 by default; a schema
 * whose `$schema` names draft 2020-12 is compiled as one. Remote `$ref`s are never fetched.
 * Compiled validators are cached by schema text, so unchanged tools are not compiled again.
 */
export class SchemaCompiler {
  private readonly draft07: Ajv;
  private readonly draft2020: Ajv2020;
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly cacheSize: number;
  private readonly maxProblems: number;

  constructor(options: SchemaCompilerOptions = {}) {
    const common = { allErrors: true, strict: true, strictTypes: false, strictTuples: false, strictRequired: true, logger: false } as const;
    this.draft07 = new Ajv(common);
    this.draft2020 = new Ajv2020(common);
    addFormats(this.draft07);
    addFormats(this.draft2020);
    this.cacheSize = options.cacheSize ?? 256;
    this.maxProblems = options.maxProblems ?? 20;
  }

  /** Problems that keep `schema` from compiling (empty when it compiles); paths start at `path`. */
  check(schema: unknown, path: string): ToolProblem[] {
    if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return [{ path, message: "must be a JSON Schema object" }];
    const { ajv, copy } = this.prepare(schema as Record<string, unknown>);
    if (!ajv.validateSchema(copy)) return this.describe(ajv.errors ?? [], path, "is not a valid JSON Schema");
    try {
      this.compile(schema as Record<string, unknown>);
      return [];
    } catch (error) {
      return [describeCompileError((error as Error).message, schema, path)];
    }
  }

  /** Problems of `value` against `schema` (which must compile: check it first); paths start at `path`. */
  validate(schema: Readonly<Record<string, unknown>>, value: unknown, path: string): ToolProblem[] {
    const validate = this.compile(schema);
    if (validate(value)) return [];
    return this.describe(validate.errors ?? [], path, "is not valid");
  }

  private compile(schema: Readonly<Record<string, unknown>>): ValidateFunction {
    const key = JSON.stringify(schema);
    const cached = this.cache.get(key);
    if (cached) {
      // Most recently used last, so eviction drops the oldest.
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached;
    }
    const { ajv, copy } = this.prepare(schema);
    const validate = ajv.compile(copy);
    // The validator keeps working; ajv's own cache would otherwise grow with every schema.
    ajv.removeSchema(copy);
    this.cache.set(key, validate);
    if (this.cache.size > this.cacheSize) this.cache.delete(this.cache.keys().next().value as string);
    return validate;
  }

  /** Picks the dialect and drops `$schema` / `$id` (ajv would look meta-schemas up, and refuse a second schema with one id). */
  private prepare(schema: Readonly<Record<string, unknown>>): { ajv: Ajv | Ajv2020; copy: AnySchema } {
    const copy: Record<string, unknown> = { ...schema };
    const dialect = typeof copy.$schema === "string" ? copy.$schema : "";
    delete copy.$schema;
    delete copy.$id;
    return { ajv: draft2020.test(dialect) ? this.draft2020 : this.draft07, copy };
  }

  private describe(errors: readonly ErrorObject[], base: string, fallback: string): ToolProblem[] {
    const problems: ToolProblem[] = [];
    const seen = new Set<string>();
    // Each branch of an anyOf/oneOf reports its own failure at the same place: the first one says enough.
    const branching = new Set(errors.filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf").map((e) => e.instancePath));
    const reported = new Set<string>();
    for (const error of errors) {
      if (error.keyword === "anyOf" || error.keyword === "oneOf") continue;
      if (branching.has(error.instancePath)) {
        if (reported.has(error.instancePath)) continue;
        reported.add(error.instancePath);
      }
      const problem = describeError(error, base);
      const key = `${problem.path}|${problem.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      problems.push(problem);
      if (problems.length >= this.maxProblems) break;
    }
    return problems.length > 0 ? problems : [{ path: base, message: fallback }];
  }
}

/** One ajv error as a problem with a readable path (`input_schema.properties.name.type`) and message. */
export function describeError(error: ErrorObject, base: string): ToolProblem {
  const segments = error.instancePath === "" ? [] : error.instancePath.slice(1).split("/").map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
  let message = error.message ?? "is not valid";
  switch (error.keyword) {
    case "required":
      segments.push(String(error.params.missingProperty));
      message = "is required";
      break;
    case "additionalProperties":
      segments.push(String(error.params.additionalProperty));
      message = "is not a known field";
      break;
    case "enum":
      message = `must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
      break;
    case "const":
      message = `must be ${JSON.stringify(error.params.allowedValue)}`;
      break;
  }
  return { path: joinPath(base, segments), message };
}

function joinPath(base: string, segments: readonly string[]): string {
  let path = base;
  for (const segment of segments) path += /^\d+$/.test(segment) ? `[${segment}]` : /^[A-Za-z_$][\w$-]*$/.test(segment) ? `${path === "" ? "" : "."}${segment}` : `[${JSON.stringify(segment)}]`;
  return path;
}

/** A compile error of ajv (strict mode) as a problem placed where it is in the schema. */
function describeCompileError(raw: string, schema: unknown, base: string): ToolProblem {
  const message = raw.replace(/^strict mode: /, "");
  const keyword = /unknown keyword: "([^"]+)"/.exec(message)?.[1];
  if (keyword !== undefined) {
    const where = locateKey(schema, keyword);
    return { path: where ? `${base}.${where}` : base, message: `unknown JSON Schema keyword "${keyword}" (a typo?)` };
  }
  const pointer = /\bat (?:path )?"#([^"]*)"/.exec(message)?.[1] ?? "";
  const segments = pointer.split("/").filter(Boolean).map((s) => decodeURIComponent(s).replaceAll("~1", "/").replaceAll("~0", "~"));
  const cleaned = message
    .replace(/ (ignored in schema )?at (path )?"#[^"]*"/, "")
    .replace(/ is not defined \(strictRequired\)$/, " is not defined in properties (a typo?)")
    .replace(/ \(strictRequired\)$/, "");
  return { path: joinPath(base, segments), message: cleaned };
}

/** Where `key` first appears as an object key in `value`, as a dotted path; undefined when nowhere. */
function locateKey(value: unknown, key: string, trail = ""): string | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const entries = Array.isArray(value) ? value.map((item, index) => [`[${index}]`, item] as const) : Object.entries(value).map(([name, item]) => [name, item] as const);
  if (!Array.isArray(value) && Object.hasOwn(value, key)) return trail === "" ? key : `${trail}.${key}`;
  for (const [name, item] of entries) {
    const next = name.startsWith("[") ? `${trail}${name}` : trail === "" ? name : `${trail}.${name}`;
    const found = locateKey(item, key, next);
    if (found !== undefined) return found;
  }
  return undefined;
}

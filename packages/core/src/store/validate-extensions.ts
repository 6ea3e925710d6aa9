import { Ajv } from "ajv";
import type { ErrorObject, ValidateFunction } from "ajv";
import { extensionsEntrySchemas } from "./extensions-schemas.js";
import type { ExtensionsEntrySchemas } from "./extensions-schemas.js";
import { extensionsSections, optionalExtensionsSections } from "./extensions-types.js";
import type { ExtensionsProblem, ExtensionsSection, OptionalExtensionsSection } from "./extensions-types.js";
import { jsonNestingLimits, valueNestsDeeperThan } from "../json/json-nesting.js";
import { formatJsonPath } from "./format-json-path.js";

export interface ExtensionsValidatorOptions {
  /** Entry schemas that replace the built-in ones, per section. @default extensionsEntrySchemas */
  readonly schemas?: Partial<ExtensionsEntrySchemas>;
}

export interface ValidateDocumentOptions {
  /** Entries equal to the same entry here are not checked again (a hand-edited entry does not block other writes). */
  readonly previous?: unknown;
}

/**
 * Checks a whole extensions document: a JSON object whose four sections are objects, and
 * each entry against its section's schema. Returns every problem, each with its path.
 */
export class ExtensionsValidator {
  private readonly ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false });
  /** Compiled on first use: a reader that never writes never pays for compiling. */
  private readonly validators = new Map<ExtensionsSection | OptionalExtensionsSection, ValidateFunction>();

  constructor(private readonly options: ExtensionsValidatorOptions = {}) {}

  validate(document: unknown, options: ValidateDocumentOptions = {}): ExtensionsProblem[] {
    if (!isPlainObject(document)) return [problem([], "the document must be a JSON object")];
    const previous = isPlainObject(options.previous) ? options.previous : {};
    const problems: ExtensionsProblem[] = [];
    for (const section of [...extensionsSections, ...optionalExtensionsSections]) {
      const entries = document[section];
      if (entries === undefined && (optionalExtensionsSections as readonly string[]).includes(section)) continue;
      if (!isPlainObject(entries)) {
        problems.push(problem([section], entries === undefined ? "the section is missing" : "must be an object"));
        continue;
      }
      const before = isPlainObject(previous[section]) ? previous[section] : {};
      for (const [name, entry] of Object.entries(entries)) {
        if (name === "") {
          problems.push(problem([section, name], "names must not be empty"));
          continue;
        }
        if (Object.hasOwn(before, name) && sameJson(before[name], entry)) continue;
        problems.push(...this.validateEntry(section, name, entry));
      }
    }
    return problems;
  }

  /** Checks one entry of a section; paths start at the section. */
  validateEntry(section: ExtensionsSection | OptionalExtensionsSection, name: string, entry: unknown): ExtensionsProblem[] {
    // Before the schema (ajv recurses too): a value nested thousands of levels deep, once stored,
    // overflowed the stack of every later update (structuredClone) and masked read, on both services.
    if (valueNestsDeeperThan(entry, jsonNestingLimits.document)) return [problem([section, name], `nests deeper than ${jsonNestingLimits.document} levels`)];
    let validate = this.validators.get(section);
    if (!validate) {
      validate = this.ajv.compile(this.options.schemas?.[section] ?? extensionsEntrySchemas[section]);
      this.validators.set(section, validate);
    }
    if (validate(entry)) return [];
    return describeErrors(validate.errors ?? [], [section, name]);
  }
}

/** Turns ajv errors into problems with readable messages; the if/then/anyOf noise is folded into one line. */
function describeErrors(errors: readonly ErrorObject[], base: readonly string[]): ExtensionsProblem[] {
  const problems: ExtensionsProblem[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (error.keyword === "if") continue;
    const segments = [...base, ...pointerSegments(error.instancePath)];
    let message: string;
    if (error.keyword === "anyOf" || error.schemaPath.includes("/anyOf/")) {
      message = "needs 'command' (a stdio server) or 'url' (a remote server)";
    } else if (error.keyword === "required") {
      segments.push(String(error.params.missingProperty));
      message = "is required";
    } else if (error.keyword === "enum") {
      message = `must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    } else if (error.keyword === "pattern" && segments.at(-1) === "url") {
      message = "must be an http(s) URL or a $VAR placeholder";
    } else {
      message = error.message ?? "is not valid";
    }
    const key = `${segments.join("\u0000")}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem(segments, message));
  }
  return problems;
}

function problem(segments: readonly string[], message: string): ExtensionsProblem {
  const pointer = segments.map((s) => `/${s.replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
  return { path: formatJsonPath(segments) || "(document)", pointer, message };
}

function pointerSegments(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

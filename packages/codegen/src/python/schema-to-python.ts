import { identifierCase } from "../names/identifier-case.js";
import type { TypeNamePool } from "../names/type-name-pool.js";
import { declaresDefault, pointerName, resolveLocalRef, schemaList, schemaObject, schemaTypes } from "../schema/json-schema.js";
import { schemaAnnotations } from "../schema/schema-annotations.js";
import type { SchemaAnnotations } from "../schema/schema-annotations.js";
import type { PythonType } from "./python-type.js";
import { anyType, pythonName, pythonUnion } from "./python-type.js";

type SchemaObject = { readonly [keyword: string]: unknown };

/** A TypedDict the module declares. */
export interface PythonTypedDict {
  readonly name: string;
  readonly docs: SchemaAnnotations;
  readonly fields: readonly { readonly key: string; readonly type: PythonType; readonly required: boolean; readonly docs: SchemaAnnotations }[];
}

/**
 * Converts one schema document to Python annotations. Objects with declared properties become
 * TypedDicts (optional keys as NotRequired), named after where they sit (`InputFilters`,
 * `InputFiltersItem`) or after their `$ref` target, referred to by quoted name so recursion works.
 * Python has no intersection type: allOf of objects is merged into one TypedDict, otherwise the
 * most specific branch wins. Anything inexpressible is `Any`.
 */
export class SchemaToPython {
  readonly typedDicts: PythonTypedDict[] = [];
  readonly #root: unknown;
  readonly #rootName: string;
  readonly #names: TypeNamePool;
  readonly #warn: (message: string) => void;
  readonly #defaultsOptional: boolean;
  readonly #classByPointer = new Map<string, string>();
  readonly #inlineStack: string[] = [];
  readonly #converted = new WeakMap<object, PythonType>();

  /**
   * `defaultsOptional`: a required property that declares a `default` is optional (for arguments,
   * where the server fills it in; see declaresDefault). @default false
   */
  constructor(options: { root: unknown; rootName: string; names: TypeNamePool; warn: (message: string) => void; defaultsOptional?: boolean }) {
    this.#root = options.root;
    this.#rootName = options.rootName;
    this.#names = options.names;
    this.#warn = options.warn;
    this.#defaultsOptional = options.defaultsOptional ?? false;
  }

  /** The root's type: a TypedDict named exactly `rootName` when the root is an object with properties. */
  rootType(): PythonType {
    const given = schemaObject(this.#root);
    const root = given ? (mergeAllOf(given, this.#root) ?? given) : undefined;
    const types = root ? schemaTypes(root) : [];
    if (root && isClassSchema(root, true) && (types.length === 0 || types.includes("object"))) {
      return { kind: "class", name: this.#classFor("", root, this.#rootName) };
    }
    this.#inlineStack.push("");
    try {
      return this.convert(this.#root, this.#rootName);
    } finally {
      this.#inlineStack.pop();
    }
  }

  convert(schema: unknown, hint: string): PythonType {
    const s = schemaObject(schema);
    if (!s) return anyType;
    // A subschema reached twice (at its own place and through a `$ref` to it) is converted once,
    // so its TypedDicts are declared once.
    const cached = this.#converted.get(s);
    if (cached) return cached;
    const type = this.#convertUncached(s, hint);
    this.#converted.set(s, type);
    return type;
  }

  #convertUncached(s: SchemaObject, hint: string): PythonType {
    const merged = mergeAllOf(s, this.#root);
    if (merged) return this.convert(merged, hint);
    const candidates: PythonType[] = [];
    if (typeof s.$ref === "string") candidates.push(this.#reference(s.$ref, hint));
    const base = this.#baseType(s, hint);
    for (const keyword of ["anyOf", "oneOf"] as const) {
      const branches = schemaList(s[keyword]);
      if (branches.length > 0) candidates.push(pythonUnion(branches.map((b, i) => this.convert(b, `${hint}Option${i + 1}`))));
    }
    for (const [i, branch] of schemaList(s.allOf).entries()) candidates.push(this.convert(branch, `${hint}Part${i + 1}`));
    const specific = candidates.find((c) => c.kind !== "any");
    // A bare `dict`/`list` from `type` loses to a more specific branch (`type: object, anyOf: [...]`).
    let type = base && !(specific && isGeneric(base)) ? base : (specific ?? base ?? anyType);
    if (s.nullable === true) type = pythonUnion([type, pythonName("None")]);
    return type;
  }

  #reference(ref: string, hint: string): PythonType {
    const resolved = resolveLocalRef(this.#root, ref);
    if (!resolved) {
      this.#warn(`unresolved $ref ${JSON.stringify(ref)}: left untyped`);
      return anyType;
    }
    const known = this.#classByPointer.get(resolved.pointer);
    if (known) return { kind: "class", name: known };
    const target = schemaObject(resolved.schema);
    const converted = target && this.#converted.get(target);
    if (converted) return converted;
    if (target && isClassSchema(target)) {
      const name = resolved.pointer === "" ? this.#rootName : pointerName(resolved.pointer);
      return { kind: "class", name: this.#classFor(resolved.pointer, target, name) };
    }
    if (this.#inlineStack.includes(resolved.pointer)) return anyType;
    this.#inlineStack.push(resolved.pointer);
    try {
      return this.convert(resolved.schema, hint);
    } finally {
      this.#inlineStack.pop();
    }
  }

  #classFor(pointer: string | undefined, s: SchemaObject, seed: string): string {
    if (pointer !== undefined) {
      const existing = this.#classByPointer.get(pointer);
      if (existing) return existing;
    }
    const name = pointer === "" ? seed : this.#names.take(seed);
    if (pointer !== undefined) this.#classByPointer.set(pointer, name);
    const declared = schemaObject(s.properties) ?? {};
    const required = new Set(schemaList(s.required).filter((k): k is string => typeof k === "string"));
    const fields = Object.entries(declared).map(([key, sub]) => ({
      key,
      type: this.convert(sub, `${name}${identifierCase.pascal(key, "Field")}`),
      required: required.has(key) && !(this.#defaultsOptional && declaresDefault(sub)),
      docs: schemaAnnotations(sub),
    }));
    for (const key of required) if (!Object.hasOwn(declared, key)) fields.push({ key, type: anyType, required: true, docs: { tags: [], deprecated: false } });
    this.typedDicts.push({ name, docs: schemaAnnotations(s), fields });
    return name;
  }

  #baseType(s: SchemaObject, hint: string): PythonType | undefined {
    if ("const" in s) return literalType([s.const]);
    if (Array.isArray(s.enum)) return literalType(s.enum);
    let types = schemaTypes(s);
    if (types.length === 0) {
      if (schemaObject(s.properties) || schemaObject(s.patternProperties) || schemaObject(s.additionalProperties)) types = ["object"];
      else if ("items" in s || "prefixItems" in s) types = ["array"];
      else return undefined;
    }
    return pythonUnion(
      types.map((type): PythonType => {
        switch (type) {
          case "string":
            return pythonName("str");
          case "integer":
            return pythonName("int");
          case "number":
            return pythonName("float");
          case "boolean":
            return pythonName("bool");
          case "null":
            return pythonName("None");
          case "object":
            if (isClassSchema(s, true)) return { kind: "class", name: this.#classFor(undefined, s, hint) };
            return { kind: "dict", value: s.additionalProperties === undefined || typeof s.additionalProperties === "boolean" ? anyType : this.convert(s.additionalProperties, `${hint}Value`) };
          case "array":
            return this.#arrayType(s, hint);
          default:
            return anyType;
        }
      }),
    );
  }

  #arrayType(s: SchemaObject, hint: string): PythonType {
    const tupleItems = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : undefined;
    if (!tupleItems) return { kind: "list", element: this.convert(s.items, `${hint}Item`) };
    const restSchema = Array.isArray(s.prefixItems) ? s.items : s.additionalItems;
    const fixed = (restSchema === false || (typeof s.maxItems === "number" && s.maxItems <= tupleItems.length)) && (typeof s.minItems === "number" ? s.minItems : 0) >= tupleItems.length;
    const elements = tupleItems.map((item, i) => this.convert(item, `${hint}Item${i + 1}`));
    if (fixed) return { kind: "tuple", elements };
    const rest = restSchema === undefined || restSchema === false || restSchema === true ? [] : [this.convert(restSchema, `${hint}Item`)];
    return { kind: "list", element: restSchema === undefined || restSchema === true ? anyType : pythonUnion([...elements, ...rest]) };
  }
}

/** An object schema with declared properties, which becomes a TypedDict. */
function isClassSchema(s: SchemaObject, typeChecked = false): boolean {
  const properties = schemaObject(s.properties);
  if (!properties || Object.keys(properties).length === 0) return false;
  if (typeChecked) return true;
  const types = schemaTypes(s);
  return (types.length === 0 || (types.length === 1 && types[0] === "object")) && !("anyOf" in s) && !("oneOf" in s) && !("allOf" in s) && !("$ref" in s) && !("enum" in s) && !("const" in s);
}

function isGeneric(type: PythonType): boolean {
  return (type.kind === "dict" && type.value.kind === "any") || (type.kind === "list" && type.element.kind === "any");
}

/**
 * allOf whose every branch is an object (directly or through a local `$ref`) merged with the
 * schema's own properties into one object schema; undefined when that is not possible.
 */
function mergeAllOf(s: SchemaObject, root: unknown): SchemaObject | undefined {
  const branches = schemaList(s.allOf);
  if (branches.length === 0) return undefined;
  const objects: SchemaObject[] = [];
  for (const branch of branches) {
    let b = schemaObject(branch);
    if (b && typeof b.$ref === "string") b = schemaObject(resolveLocalRef(root, b.$ref)?.schema);
    if (!b || "allOf" in b || "anyOf" in b || "oneOf" in b || "$ref" in b) return undefined;
    const types = schemaTypes(b);
    if (types.length > 0 && !(types.length === 1 && types[0] === "object")) return undefined;
    objects.push(b);
  }
  const { allOf: _allOf, ...own } = s;
  const properties: Record<string, unknown> = {};
  const required: unknown[] = [];
  for (const part of [own, ...objects]) {
    Object.assign(properties, schemaObject(part.properties) ?? {});
    required.push(...schemaList(part.required));
  }
  return { ...own, type: "object", properties, required };
}

function literalType(values: readonly unknown[]): PythonType {
  return pythonUnion(
    values.map((value): PythonType => {
      if (value === null) return pythonName("None");
      if (typeof value === "string") return { kind: "literal", values: [JSON.stringify(value)] };
      if (typeof value === "boolean") return { kind: "literal", values: [value ? "True" : "False"] };
      if (typeof value === "number") return Number.isInteger(value) && Number.isSafeInteger(value) ? { kind: "literal", values: [String(value)] } : pythonName("float");
      return anyType;
    }),
  );
}

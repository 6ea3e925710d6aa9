import type { TypeNamePool } from "../names/type-name-pool.js";
import { declaresDefault, pointerName, resolveLocalRef, schemaList, schemaObject, schemaTypes } from "../schema/json-schema.js";
import type { SchemaAnnotations } from "../schema/schema-annotations.js";
import { schemaAnnotations } from "../schema/schema-annotations.js";
import type { TypeScriptProperty, TypeScriptType } from "./typescript-type.js";
import { intersectionOf, keyword, neverType, unionOf, unknownType } from "./typescript-type.js";

/** Keywords that shape a value; a schema with only `$ref` among them is a pure reference. */
const shapingKeywords = new Set(["type", "properties", "items", "prefixItems", "enum", "const", "anyOf", "oneOf", "allOf", "$ref", "additionalProperties", "patternProperties", "required", "nullable"]);

/** A named type a file declares for a `$ref` target (`export type Filter = ...`). */
export interface TypeScriptNamedType {
  readonly name: string;
  readonly type: TypeScriptType;
  readonly docs: SchemaAnnotations;
}

/**
 * Converts one schema document (a tool's inputSchema or outputSchema) to TypeScript. `$ref`s
 * become named types, declared once each, so recursive schemas stay finite; a ref in a "direct"
 * position (the top of a type alias, or a union member there) is expanded inline instead, because
 * TypeScript rejects an alias that is nothing but itself (`type A = A | B`). A cycle of such refs,
 * an unresolvable ref or a remote ref becomes `unknown` and a warning.
 */
export class SchemaToTypeScript {
  readonly namedTypes: TypeScriptNamedType[] = [];
  readonly #root: unknown;
  readonly #rootName: string;
  readonly #names: TypeNamePool;
  readonly #warn: (message: string) => void;
  readonly #defaultsOptional: boolean;
  readonly #namesByPointer = new Map<string, string>();
  #inlineStack: string[] = [""];

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

  /** The type of the document's root. */
  rootType(): TypeScriptType {
    // A root that is only a reference (`{ "$ref": "#/$defs/Params" }`) reads best as `Input = Params`.
    const root = schemaObject(this.#root);
    if (root && typeof root.$ref === "string" && Object.keys(root).every((k) => !shapingKeywords.has(k) || k === "$ref")) {
      const resolved = resolveLocalRef(this.#root, root.$ref);
      if (resolved && resolved.pointer !== "") return { kind: "name", name: this.#namedType(resolved.pointer, resolved.schema) };
    }
    return this.convert(this.#root, true);
  }

  convert(schema: unknown, direct: boolean): TypeScriptType {
    if (schema === false) return neverType;
    const s = schemaObject(schema);
    if (!s) return unknownType;
    const parts: TypeScriptType[] = [];
    if (typeof s.$ref === "string") parts.push(this.#reference(s.$ref, direct));
    const base = this.#baseType(s);
    if (base) parts.push(base);
    for (const keyword of ["anyOf", "oneOf"] as const) {
      const branches = schemaList(s[keyword]);
      if (branches.length > 0) parts.push(unionOf(branches.map((branch) => this.convert(branch, direct))));
    }
    for (const branch of schemaList(s.allOf)) parts.push(this.convert(branch, direct));
    const type = intersectionOf(parts);
    return s.nullable === true ? unionOf([type, keyword("null")]) : type;
  }

  #reference(ref: string, direct: boolean): TypeScriptType {
    const resolved = resolveLocalRef(this.#root, ref);
    if (!resolved) {
      this.#warn(`unresolved $ref ${JSON.stringify(ref)}: left untyped`);
      return unknownType;
    }
    if (direct) {
      if (this.#inlineStack.includes(resolved.pointer)) {
        this.#warn(`$ref ${JSON.stringify(ref)} refers to itself directly: left untyped`);
        return unknownType;
      }
      this.#inlineStack.push(resolved.pointer);
      try {
        return this.convert(resolved.schema, true);
      } finally {
        this.#inlineStack.pop();
      }
    }
    if (resolved.pointer === "") return { kind: "name", name: this.#rootName };
    return { kind: "name", name: this.#namedType(resolved.pointer, resolved.schema) };
  }

  #namedType(pointer: string, schema: unknown): string {
    const existing = this.#namesByPointer.get(pointer);
    if (existing) return existing;
    const name = this.#names.take(pointerName(pointer));
    this.#namesByPointer.set(pointer, name);
    const saved = this.#inlineStack;
    this.#inlineStack = [pointer];
    try {
      this.namedTypes.push({ name, type: this.convert(schema, true), docs: schemaAnnotations(schema) });
    } finally {
      this.#inlineStack = saved;
    }
    return name;
  }

  #baseType(s: { readonly [keyword: string]: unknown }): TypeScriptType | undefined {
    if ("const" in s) return literalType(s.const);
    if (Array.isArray(s.enum)) return unionOf(s.enum.map(literalType));
    let types = schemaTypes(s);
    if (types.length === 0) {
      if (schemaObject(s.properties) || schemaObject(s.patternProperties) || schemaObject(s.additionalProperties)) types = ["object"];
      else if ("items" in s || "prefixItems" in s) types = ["array"];
      else return undefined;
    }
    return unionOf(
      types.map((type): TypeScriptType => {
        switch (type) {
          case "string":
            return keyword("string");
          case "number":
          case "integer":
            return keyword("number");
          case "boolean":
            return keyword("boolean");
          case "null":
            return keyword("null");
          case "object":
            return this.#objectType(s);
          case "array":
            return this.#arrayType(s);
          default:
            return unknownType;
        }
      }),
    );
  }

  #objectType(s: { readonly [keyword: string]: unknown }): TypeScriptType {
    const declared = schemaObject(s.properties) ?? {};
    const required = new Set(schemaList(s.required).filter((name): name is string => typeof name === "string"));
    const properties: TypeScriptProperty[] = Object.entries(declared).map(([name, sub]) => ({
      name,
      optional: !required.has(name) || (this.#defaultsOptional && declaresDefault(sub)),
      type: this.convert(sub, false),
      docs: schemaAnnotations(sub),
    }));
    for (const name of required) if (!Object.hasOwn(declared, name)) properties.push({ name, optional: false, type: unknownType });

    const patterns = Object.values(schemaObject(s.patternProperties) ?? {}).map((sub) => this.convert(sub, false));
    const additional = s.additionalProperties;
    if (additional === false && patterns.length === 0) return { kind: "object", properties };
    const additionalType = additional === undefined || additional === true ? unknownType : this.convert(additional, false);
    let index = unionOf([additionalType, ...patterns]);
    // Every declared property must fit the index signature, so a typed index widens to cover them.
    if (properties.length > 0 && !(index.kind === "keyword" && index.name === "unknown")) {
      index = unionOf([index, ...properties.map((p) => p.type), ...(properties.some((p) => p.optional) ? [keyword("undefined")] : [])]);
    }
    return { kind: "object", properties, index };
  }

  #arrayType(s: { readonly [keyword: string]: unknown }): TypeScriptType {
    const tupleItems = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : undefined;
    if (!tupleItems) return { kind: "array", element: this.convert(s.items ?? true, false) };
    const minItems = typeof s.minItems === "number" ? s.minItems : 0;
    const restSchema = Array.isArray(s.prefixItems) ? s.items : s.additionalItems;
    const closed = restSchema === false || (typeof s.maxItems === "number" && s.maxItems <= tupleItems.length);
    return {
      kind: "tuple",
      elements: tupleItems.map((item, i) => ({ type: this.convert(item, false), optional: i >= minItems })),
      ...(closed ? {} : { rest: this.convert(restSchema ?? true, false) }),
    };
  }
}

/** The TypeScript type of one JSON value: `"a"`, `3`, `true`, `null`, a tuple or an object literal type. */
function literalType(value: unknown): TypeScriptType {
  if (value === null) return keyword("null");
  if (typeof value === "string" || typeof value === "boolean") return { kind: "literal", text: JSON.stringify(value) };
  if (typeof value === "number") return Number.isFinite(value) ? { kind: "literal", text: String(value) } : keyword("number");
  if (Array.isArray(value)) return { kind: "tuple", elements: value.map((v) => ({ type: literalType(v), optional: false })) };
  if (typeof value === "object") {
    return { kind: "object", properties: Object.entries(value).map(([name, v]) => ({ name, optional: false, type: literalType(v) })) };
  }
  return unknownType;
}

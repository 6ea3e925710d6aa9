import type { SchemaAnnotations } from "../schema/schema-annotations.js";
import { typeScriptDocComment } from "./typescript-doc-comment.js";

/** A small TypeScript type tree: built from a schema, simplified, then printed with indentation. */
export type TypeScriptType =
  | { readonly kind: "keyword"; readonly name: "string" | "number" | "boolean" | "null" | "undefined" | "unknown" | "never" }
  | { readonly kind: "literal"; readonly text: string }
  | { readonly kind: "name"; readonly name: string }
  | { readonly kind: "array"; readonly element: TypeScriptType }
  | { readonly kind: "tuple"; readonly elements: readonly { readonly type: TypeScriptType; readonly optional: boolean }[]; readonly rest?: TypeScriptType }
  | { readonly kind: "object"; readonly properties: readonly TypeScriptProperty[]; readonly index?: TypeScriptType }
  | { readonly kind: "union"; readonly members: readonly TypeScriptType[] }
  | { readonly kind: "intersection"; readonly members: readonly TypeScriptType[] };

export interface TypeScriptProperty {
  readonly name: string;
  readonly optional: boolean;
  readonly type: TypeScriptType;
  readonly docs?: SchemaAnnotations;
}

export const unknownType: TypeScriptType = { kind: "keyword", name: "unknown" };
export const neverType: TypeScriptType = { kind: "keyword", name: "never" };
export const keyword = (name: "string" | "number" | "boolean" | "null" | "undefined"): TypeScriptType => ({ kind: "keyword", name });

const isKeyword = (type: TypeScriptType, name: string): boolean => type.kind === "keyword" && type.name === name;

/** A union, flattened and deduplicated; `unknown` absorbs everything, `never` disappears. */
export function unionOf(members: readonly TypeScriptType[]): TypeScriptType {
  const flat = members.flatMap((m) => (m.kind === "union" ? m.members : [m])).filter((m) => !isKeyword(m, "never"));
  if (flat.some((m) => isKeyword(m, "unknown"))) return unknownType;
  const unique = dedupe(flat);
  if (unique.length === 0) return neverType;
  return unique.length === 1 ? (unique[0] as TypeScriptType) : { kind: "union", members: unique };
}

/** An intersection, flattened and deduplicated; `unknown` disappears, `never` absorbs everything. */
export function intersectionOf(members: readonly TypeScriptType[]): TypeScriptType {
  const flat = members.flatMap((m) => (m.kind === "intersection" ? m.members : [m])).filter((m) => !isKeyword(m, "unknown"));
  if (flat.some((m) => isKeyword(m, "never"))) return neverType;
  const unique = dedupe(flat);
  if (unique.length === 0) return unknownType;
  return unique.length === 1 ? (unique[0] as TypeScriptType) : { kind: "intersection", members: unique };
}

/** Drops repeated keywords, literals and names; structured members are kept (printing them to compare would cost more than it saves). */
function dedupe(types: readonly TypeScriptType[]): TypeScriptType[] {
  const seen = new Set<string>();
  return types.filter((t) => {
    const key = t.kind === "keyword" ? t.name : t.kind === "literal" ? `'${t.text}` : t.kind === "name" ? `#${t.name}` : undefined;
    if (key === undefined) return true;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const identifierPattern = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property key as TypeScript needs it: bare when it is an identifier, else a quoted string. */
export function propertyKey(name: string): string {
  return identifierPattern.test(name) ? name : JSON.stringify(name);
}

/** `export type Name = <type>;`, with no trailing space when the type starts on its own line. */
export function typeAliasDeclaration(name: string, type: TypeScriptType): string {
  return `export type ${name} =${spaced(printTypeScriptType(type, ""))};`;
}

/** Prints a type; `indent` is the indentation of the line the type starts on. */
export function printTypeScriptType(type: TypeScriptType, indent: string): string {
  switch (type.kind) {
    case "keyword":
      return type.name;
    case "literal":
      return type.text;
    case "name":
      return type.name;
    case "array":
      return `${wrapped(type.element, indent)}[]`;
    case "tuple": {
      const elements = type.elements.map((e) => (e.optional ? `${wrapped(e.type, indent)}?` : printTypeScriptType(e.type, indent)));
      if (type.rest) elements.push(`...${wrapped(type.rest, indent)}[]`);
      return `[${elements.join(", ")}]`;
    }
    case "union": {
      const members = type.members.map((m) => printTypeScriptType(m, `${indent}  `));
      const oneLine = members.join(" | ");
      if (oneLine.length <= 100 && !oneLine.includes("\n")) return oneLine;
      return members.map((m) => `\n${indent}  | ${m}`).join("");
    }
    case "intersection":
      return type.members.map((m) => (m.kind === "union" ? `(${printTypeScriptType(m, indent)})` : printTypeScriptType(m, indent))).join(" & ");
    case "object":
      return printObject(type.properties, type.index, indent);
  }
}

function wrapped(type: TypeScriptType, indent: string): string {
  const text = printTypeScriptType(type, indent);
  return type.kind === "union" || type.kind === "intersection" ? `(${text})` : text;
}

function printObject(properties: readonly TypeScriptProperty[], index: TypeScriptType | undefined, indent: string): string {
  if (properties.length === 0) {
    const value = index ? printTypeScriptType(index, indent) : "never";
    if (!value.includes("\n")) return `{ [key: string]: ${value} }`;
  }
  const inner = `${indent}  `;
  const lines: string[] = ["{"];
  for (const property of properties) {
    if (property.docs) lines.push(...typeScriptDocComment(property.docs, inner));
    lines.push(`${inner}${propertyKey(property.name)}${property.optional ? "?" : ""}:${spaced(printTypeScriptType(property.type, inner))};`);
  }
  if (index) lines.push(`${inner}[key: string]:${spaced(printTypeScriptType(index, inner))};`);
  lines.push(`${indent}}`);
  return lines.join("\n");
}

/** A type after `:` or `=`: a space before it, unless it starts on its own line. */
export function spaced(text: string): string {
  return text.startsWith("\n") ? text : ` ${text}`;
}

import fs from "node:fs";
import path from "node:path";
import { makeTempDir } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateCodeApi } from "../generate/generate-code-api.js";
import type { GenerateCodeApiResult } from "../generate/generate-code-api.js";
import { trickyServer } from "../test-support/tricky-schemas.js";
import { typeCheckFiles } from "../test-support/type-check-files.js";

// Each line below must compile; each `@ts-expect-error` must be a real error (tsc reports an unused one).
const checks = `
import type * as objects from "./servers/tricky-server-v2/objects.js";
import type * as additional from "./servers/tricky-server-v2/additional.js";
import type * as arrays from "./servers/tricky-server-v2/arrays.js";
import type * as enums from "./servers/tricky-server-v2/enums.js";
import type * as unions from "./servers/tricky-server-v2/unions.js";
import type * as refs from "./servers/tricky-server-v2/refs.js";
import type * as rootRef from "./servers/tricky-server-v2/rootRef.js";
import * as tricky from "./servers/tricky-server-v2/index.js";

export const objectOk: objects.Input = { name: "a", class: "x", missing_declared: 1, "odd-key": "k", "with space": true, "0digit": 1, __typename: "T" };
// @ts-expect-error name is required
export const objectNoName: objects.Input = { class: "x", missing_declared: 1 };
// @ts-expect-error additionalProperties: false
export const objectExtra: objects.Input = { name: "a", class: "x", missing_declared: 1, extra: 1 };
// @ts-expect-error count is an integer
export const objectBadCount: objects.Input = { name: "a", class: "x", missing_declared: 1, count: "1" };

export const additionalOk: additional.Input = { typed: { id: "x", other: 2 }, open: { a: "x", anything: [1] }, map: { x: true }, patterned: { "x-a": "b" }, empty: {} };
// @ts-expect-error typed extra keys are numbers
export const additionalBadTyped: additional.Input = { typed: { other: true } };
// @ts-expect-error map values are booleans
export const additionalBadMap: additional.Input = { map: { x: 1 } };
// @ts-expect-error a closed empty object takes no keys
export const additionalBadEmpty: additional.Input = { empty: { a: 1 } };

export const arraysOk: arrays.Input = { list: ["a"], tuple: ["a", 1], oldTuple: ["a"], matrix: [[1, 2]], mixed: ["a", 1], untyped: [1, "x", null] };
export const oldTupleRest: arrays.Input = { oldTuple: ["a", true, 5] };
// @ts-expect-error tuple order
export const arraysBadTuple: arrays.Input = { tuple: [1, "a"] };
// @ts-expect-error closed tuple (items: false)
export const arraysLongTuple: arrays.Input = { tuple: ["a", 1, 2] };
// @ts-expect-error minItems: 2 makes both elements required
export const arraysShortTuple: arrays.Input = { tuple: ["a"] };

export const enumsOk: enums.Input = { color: "red", level: 2, mode: "fast", mixed: null, object: { k: [1] } };
// @ts-expect-error not in the enum
export const enumsBadColor: enums.Input = { color: "blue" };
// @ts-expect-error const
export const enumsBadMode: enums.Input = { color: "red", mode: "slow" };

export function area(shape: NonNullable<unions.Input["shape"]>): number {
  return shape.kind === "circle" ? shape.r : shape.side;
}
export const unionsOk: unions.Input = { value: 1, nullableOld: null, nullableNew: null, refined: "2024-01-01", both: { a: "x", b: 1 }, typeList: [true] };
export const typeListOther: unions.Input = { typeList: 3 };
// @ts-expect-error allOf needs both parts
export const unionsHalf: unions.Input = { both: { a: "x" } };
// @ts-expect-error anyOf string | number
export const unionsBadValue: unions.Input = { value: true };

export const refsOk: refs.Input = {
  tree: { name: "root", children: [{ name: "leaf", children: [] }] },
  alias: { name: "a" },
  loop: Symbol("anything goes: a self-referencing alias is unknown"),
  json: [1, "x", { a: [2] }],
  self: { self: { tree: { name: "deep" } } },
  pointer: { name: "p" },
  escaped: "w",
  legacy: 1,
  missing: "unresolved refs accept anything",
};
// @ts-expect-error a child node needs a name
export const refsBadChild: refs.Input = { tree: { name: "root", children: [{}] } };
// @ts-expect-error the Json union has no booleans
export const refsBadJson: refs.Input = { json: [true] };

export const rootRefOk: rootRef.Input = { q: "x" };
// @ts-expect-error the referenced root requires q
export const rootRefBad: rootRef.Input = {};

export async function calls(): Promise<number> {
  const result = await tricky.outputs();
  const first = result.items[0];
  // @ts-expect-error noUncheckedIndexedAccess: the first item may be undefined
  first.id.toUpperCase();
  await tricky.delete_({ id: "x" });
  // @ts-expect-error delete needs an id
  await tricky.delete_({});
  await tricky.getItem();
  await tricky.getItem2({ any: "thing" });
  const untyped: tricky.ObjectsResponse = 42;
  void untyped;
  return result.total + (first?.id.length ?? 0);
}
`;

let temp: ReturnType<typeof makeTempDir>;
let result: GenerateCodeApiResult;
const read = (file: string) => fs.readFileSync(path.join(temp.dir, "servers", "tricky-server-v2", file), "utf8");

beforeAll(async () => {
  temp = makeTempDir();
  result = await generateCodeApi({ servers: [trickyServer], outDir: temp.dir, languages: ["typescript"] });
  fs.writeFileSync(path.join(temp.dir, "checks.ts"), checks);
});
afterAll(() => temp.cleanup());

describe("JSON Schema → TypeScript", () => {
  it("type-checks under strict settings, accepting what the schemas allow and rejecting what they forbid", () => {
    const files = [path.join(temp.dir, "checks.ts"), ...fs.readdirSync(path.join(temp.dir, "servers", "tricky-server-v2")).map((f) => path.join(temp.dir, "servers", "tricky-server-v2", f))];
    expect(typeCheckFiles(files)).toEqual([]);
  }, 120_000);

  it("has a type check that does report errors", () => {
    fs.writeFileSync(path.join(temp.dir, "broken.ts"), "export const x: string = 1;\n");
    expect(typeCheckFiles([path.join(temp.dir, "broken.ts")])).toEqual([expect.stringContaining("broken.ts:1: Type 'number' is not assignable to type 'string'.")]);
  }, 60_000);

  it("quotes odd property names and carries the schema's documentation as TSDoc", () => {
    const source = read("objects.ts");
    expect(source).toContain('"odd-key"?: string;');
    expect(source).toContain('"with space"?: boolean;');
    expect(source).toContain('"0digit"?: number;');
    expect(source).toContain("class: string;");
    expect(source).toContain("missing_declared: unknown;");
    for (const tag of ["@minLength 1", "@maxLength 10", "@pattern ^[a-z]+$", "@minimum 0", "@maximum 5", "@default 1", "@format email", "@exclusiveMinimum 0"]) expect(source).toContain(tag);
    // A description cannot end the comment early, nor smuggle in a tag.
    expect(source).toContain("The name *\\/ evil");
    expect(source).toContain(" * \\@param a fake tag.");
    expect(source).not.toMatch(/evil \*\//);
  });

  it("documents enums and lists literal types", () => {
    const source = read("enums.ts");
    expect(source).toContain('color: "red" | "green";');
    expect(source).toContain('@enum "red", "green"');
    expect(source).toContain("level?: 1 | 2 | 3;");
    expect(source).toContain('mode?: "fast";');
    expect(source).toContain('mixed?: "a" | 1 | null | true | 2.5;');
  });

  it("declares $ref targets as named types and reports what it could not resolve", () => {
    const source = read("refs.ts");
    expect(source).toContain("export type Node = {");
    expect(source).toContain("children?: Node[];");
    expect(source).toContain("self?: Input;");
    expect(source).toContain("export type Json = string | number | Json[] | { [key: string]: Json };");
    expect(source).toContain("export type Loop = unknown;");
    expect(source).toContain("export type WeirdNameX = \"w\";");
    expect(read("rootRef.ts")).toContain("export type Input = Params;");
    const messages = result.warnings.filter((w) => w.tool === "refs").map((w) => w.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        'inputSchema: unresolved $ref "#/$defs/Nope": left untyped',
        'inputSchema: unresolved $ref "https://example.com/schema.json": left untyped',
        'inputSchema: $ref "#/$defs/Loop" refers to itself directly: left untyped',
      ]),
    );
  });

  it("writes wrappers that call the tool by its exact names, with an optional argument when nothing is required", () => {
    const outputs = read("outputs.ts");
    expect(outputs).toContain("export type Response = {\n  total: number;");
    expect(outputs).toContain("export async function outputs(input?: Input): Promise<Response> {");
    expect(outputs).toContain('return callMCPTool<Response>("tricky:Server.v2", "outputs", input ?? {});');
    expect(outputs).toContain("Read-only: it does not change anything.");
    const remove = read("delete_.ts");
    expect(remove).toContain("export async function delete_(input: Input): Promise<Response> {");
    expect(remove).toContain('callMCPTool<Response>("tricky:Server.v2", "delete", input)');
    expect(remove).toContain("Destructive");
    expect(read("objects.ts")).toContain("export type Response = unknown;");
    const index = read("index.ts");
    expect(index).toContain('export { getItem2 } from "./getItem2.js";');
    expect(index).toContain('export type { Input as Delete_Input, Response as Delete_Response } from "./delete_.js";');
  });
});

import { describe, expect, it } from "vitest";
import { formArguments, formFields } from "./schema-form-model.js";

const schema = {
  type: "object",
  required: ["text", "count", "mode"],
  properties: {
    text: { type: "string", description: "What to say", default: "hi" },
    count: { type: "integer" },
    ratio: { type: ["number", "null"] },
    loud: { type: "boolean", default: true },
    mode: { type: "string", enum: ["a", "b"] },
    flags: { type: "array", items: { enum: ["x", "y", "z"] } },
    tags: { type: "array", items: { type: "string" } },
    sizes: { type: "array", items: { type: "integer" } },
    nested: { type: "object", properties: { deep: { type: "string" } } },
    anything: {},
  },
};

describe("a form from an input schema", () => {
  it("makes one field per property, in order, with its kind, required mark, description and default", () => {
    const fields = formFields(schema);
    expect(fields.map((field) => [field.name, field.kind, field.required])).toEqual([
      ["text", "text", true],
      ["count", "integer", true],
      ["ratio", "number", false],
      ["loud", "boolean", false],
      ["mode", "enum", true],
      ["flags", "enum-list", false],
      ["tags", "list", false],
      ["sizes", "list", false],
      ["nested", "json", false],
      ["anything", "json", false],
    ]);
    expect(fields[0]).toMatchObject({ description: "What to say", initial: "hi" });
    expect(fields[3]?.initial).toBe(true);
  });

  it("reads the filled form back as typed arguments, leaving out empty optional fields", () => {
    const fields = formFields(schema);
    const outcome = formArguments(fields, { count: "3", mode: "1", flags: [2, 0], tags: "one\n\n two ", sizes: "1\n2", nested: '{"deep": "<b>x</b>"}', loud: false });
    expect(outcome).toEqual({ ok: true, value: { text: "hi", count: 3, loud: false, mode: "b", flags: ["z", "x"], tags: ["one", "two"], sizes: [1, 2], nested: { deep: "<b>x</b>" } } });
  });

  it("names the field that cannot be read, and a required one left empty", () => {
    const fields = formFields(schema);
    expect(formArguments(fields, { count: "2.5", mode: "0" })).toMatchObject({ ok: false, field: "count", message: expect.stringContaining("not a whole number") });
    expect(formArguments(fields, { count: "1", mode: "" })).toMatchObject({ ok: false, field: "mode", message: "mode is required" });
    expect(formArguments(fields, { count: "1", mode: "0", sizes: "1\nten" })).toMatchObject({ ok: false, field: "sizes" });
    expect(formArguments(fields, { count: "1", mode: "0", nested: "{oops" })).toMatchObject({ ok: false, field: "nested", message: expect.stringContaining("not valid JSON") });
  });

  it("takes hostile or odd schemas without throwing: no properties, non-object properties, enums of objects", () => {
    expect(formFields(undefined)).toEqual([]);
    expect(formFields({ type: "object", properties: [] })).toEqual([]);
    const odd = JSON.parse('{"properties": {"__proto__": {"type": "string"}, "odd": "nope", "objs": {"enum": [{"a": 1}]}}}') as unknown;
    const fields = formFields(odd);
    expect(fields.map((field) => [field.name, field.kind])).toEqual([
      ["__proto__", "text"],
      ["odd", "json"],
      ["objs", "json"],
    ]);
    const outcome = formArguments(fields, JSON.parse('{"__proto__": "polluted?"}') as Record<string, string>);
    expect(outcome.ok && JSON.stringify(outcome.value)).toBe('{"__proto__":"polluted?"}');
    expect(outcome.ok && Object.getPrototypeOf(outcome.value)).toBe(Object.prototype);
  });
});

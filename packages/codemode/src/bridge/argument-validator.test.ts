import { describe, expect, it } from "vitest";
import { ArgumentValidator } from "./argument-validator.js";

const tool = (inputSchema: Record<string, unknown>) => ({ name: "t", inputSchema });

describe("ArgumentValidator", () => {
  it("checks draft-07 schemas and reports every problem with its path", () => {
    const validator = new ArgumentValidator();
    const definition = tool({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { q: { type: "string" }, n: { type: "integer", minimum: 1 }, kind: { enum: ["a", "b"] } },
      required: ["q"],
      additionalProperties: false,
    });
    expect(validator.check(definition, { q: "x", n: 2, kind: "a" })).toEqual({ ok: true });
    const bad = validator.check(definition, { n: 0, kind: "c", extra: true });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.problems).toEqual([
      "arguments: missing required property 'q'",
      "arguments: unknown property 'extra'",
      "arguments/n: must be >= 1",
      'arguments/kind: must be one of "a", "b"',
    ]);
  });

  it("checks 2020-12 schemas (prefixItems, $defs) with the 2020 dialect", () => {
    const validator = new ArgumentValidator();
    const definition = tool({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { pair: { type: "array", prefixItems: [{ type: "string" }, { $ref: "#/$defs/count" }], items: false } },
      $defs: { count: { type: "integer" } },
    });
    expect(validator.check(definition, { pair: ["a", 1] })).toEqual({ ok: true });
    expect(validator.check(definition, { pair: ["a", "b"] }).ok).toBe(false);
    expect(validator.check(definition, { pair: ["a", 1, 2] }).ok).toBe(false);
  });

  it("does not require a property that declares a default (the server fills it in), at any depth, and leaves the tool's schema as it was", () => {
    const validator = new ArgumentValidator();
    const inputSchema = {
      type: "object",
      properties: {
        scale: { type: "string", enum: ["css", "device"], default: "css" },
        url: { type: "string" },
        options: { type: "object", properties: { level: { type: "string", default: "info" }, name: { type: "string" } }, required: ["level", "name"] },
      },
      required: ["scale", "url"],
    };
    const before = structuredClone(inputSchema);
    const definition = tool(inputSchema);
    expect(validator.check(definition, { url: "https://example.com" })).toEqual({ ok: true });
    expect(validator.check(definition, { url: "https://example.com", options: { name: "n" } })).toEqual({ ok: true });
    expect(validator.check(definition, { scale: "css" })).toEqual({ ok: false, problems: ["arguments: missing required property 'url'"] });
    expect(validator.check(definition, { url: "u", options: {} })).toEqual({ ok: false, problems: ["arguments/options: missing required property 'name'"] });
    expect(validator.check(definition, { url: "u", scale: "huge" }).ok).toBe(false);
    expect(inputSchema).toEqual(before);
  });

  it("lets a call through unchecked when the schema cannot be compiled, and says so once", () => {
    const problems: string[] = [];
    const validator = new ArgumentValidator({ onSchemaProblem: (t, reason) => problems.push(`${t.name}: ${reason}`) });
    const definition = tool({ type: "object", properties: { a: { $ref: "https://example.com/remote.json" } } });
    expect(validator.check(definition, { a: 1 })).toEqual({ ok: true });
    expect(validator.check(definition, { a: 2 })).toEqual({ ok: true });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^t: /);
  });

  it("tolerates unknown keywords and formats, and compiles each tool object once", () => {
    const validator = new ArgumentValidator();
    const definition = tool({ type: "object", properties: { when: { type: "string", format: "made-up", "x-widget": "date" } } });
    expect(validator.check(definition, { when: "anything" })).toEqual({ ok: true });
    expect(validator.check(definition, { when: 5 }).ok).toBe(false);
    // Two tools with the same $id (servers reuse ids) both compile.
    const one = tool({ $id: "urn:same", type: "object", properties: { a: { type: "string" } } });
    const two = tool({ $id: "urn:same", type: "object", properties: { a: { type: "number" } } });
    expect(validator.check(one, { a: "x" })).toEqual({ ok: true });
    expect(validator.check(two, { a: 1 })).toEqual({ ok: true });
    expect(validator.check(two, { a: "x" }).ok).toBe(false);
  });
});

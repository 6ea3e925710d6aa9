import { describe, expect, it } from "vitest";
import { jsonTextNesting, valueNestsDeeperThan } from "./json-nesting.js";

describe("JSON nesting", () => {
  it("counts brackets outside strings, escapes included, and stops early past the bound", () => {
    expect(jsonTextNesting("1")).toBe(0);
    expect(jsonTextNesting('{"a":[1,{"b":[]}]}')).toBe(4);
    expect(jsonTextNesting('{"a":"[[[{{{\\"[[["}')).toBe(1);
    expect(jsonTextNesting(`${"[".repeat(1_000_000)}${"]".repeat(1_000_000)}`, 64)).toBe(65);
  });

  it("says whether a parsed value nests past a bound, without recursing (cycles count as too deep)", () => {
    let deep: unknown = 1;
    for (let level = 0; level < 100_000; level++) deep = { a: deep };
    expect(valueNestsDeeperThan(deep, 64)).toBe(true);
    expect(valueNestsDeeperThan({ a: [{ b: 1 }] }, 3)).toBe(false);
    expect(valueNestsDeeperThan({ a: [{ b: {} }] }, 3)).toBe(true);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(valueNestsDeeperThan(cycle, 64)).toBe(true);
  });
});

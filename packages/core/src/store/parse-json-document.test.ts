import { describe, expect, it } from "vitest";
import { locationOf, parseJsonDocument, scanForError } from "./parse-json-document.js";

describe("parseJsonDocument", () => {
  it("parses JSON and ignores a byte-order mark", () => {
    expect(parseJsonDocument('\uFEFF{"a": [1]}', "f.json")).toEqual({ a: [1] });
  });

  it("gives line and column for a message with a position and for one without", () => {
    expect(() => parseJsonDocument('{\n  "a": 1,\n}', "f.json")).toThrowError(/^f\.json:3:1: not valid JSON: Expected double-quoted property name$/);
    expect(() => parseJsonDocument('{\n  "a": nul\n}', "f.json")).toThrowError(/^f\.json:2:11: not valid JSON: Unexpected token '\\n'$/);
  });
});

describe("scanForError", () => {
  it.each([
    ["", 0],
    ["{", 1],
    ['{"a" 1}', 5],
    ['{"a": tru}', 9],
    ["[1, 2 3]", 6],
    ['"\\x"', 2],
    ['"a\nb"', 2],
    ["-", 1],
    ["{} x", 3],
    ['{"a": [1, {"b": falsy}]}', 20],
  ])("finds where %j stops being JSON", (text, offset) => {
    expect(scanForError(text)).toBe(offset);
  });

  it("agrees with V8 wherever V8 reports a position", () => {
    for (const text of ['{"a": 1,}', '{"a" 1}', '{"a": 1', "[1, 2 3]", '{"a":1} x']) {
      let reported = -1;
      try {
        JSON.parse(text);
      } catch (error) {
        reported = Number(/position (\d+)/.exec((error as Error).message)?.[1]);
      }
      expect(scanForError(text)).toBe(reported);
    }
  });
});

describe("locationOf", () => {
  it("counts lines and columns from 1", () => {
    expect(locationOf("ab\ncd\n", 0)).toEqual({ line: 1, column: 1 });
    expect(locationOf("ab\ncd\n", 4)).toEqual({ line: 2, column: 2 });
    expect(locationOf("ab\ncd\n", 99)).toEqual({ line: 3, column: 1 });
  });
});

import { describe, expect, it } from "vitest";
import { ExtensionsValidator } from "./validate-extensions.js";

const base = { mcpServers: {}, skills: {}, plugins: {}, tools: {} };

describe("a user's memory switches (users.<id>.memory)", () => {
  it("accepts booleans enabled and auto (either, both, or other keys kept), refuses anything else for them", () => {
    const validator = new ExtensionsValidator();
    expect(validator.validate({ ...base, users: { usr_a: { memory: { enabled: false } }, "jwt:b": { memory: { auto: true, enabled: true, note: "kept" } } } })).toEqual([]);
    expect(validator.validate({ ...base, users: { usr_a: { memory: { enabled: "no" } } } }).map((problem) => problem.path)).toEqual(["users.usr_a.memory.enabled"]);
    expect(validator.validate({ ...base, users: { usr_a: { memory: { auto: 1 } } } }).map((problem) => problem.path)).toEqual(["users.usr_a.memory.auto"]);
    expect(validator.validate({ ...base, users: { usr_a: { memory: true } } })).not.toEqual([]);
  });
});

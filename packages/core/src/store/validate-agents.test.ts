import { describe, expect, it } from "vitest";
import { ExtensionsValidator } from "./validate-extensions.js";

const base = { mcpServers: {}, skills: {}, plugins: {}, tools: {} };

describe("the agents section and a user's agents overlay", () => {
  it("accepts agents.<identity>.enabled and users.<id>.agents.<identity>.enabled, keeps other keys, refuses an entry without a boolean enabled", () => {
    const validator = new ExtensionsValidator();
    expect(validator.validate({ ...base, agents: { "builtin:general-purpose": { enabled: false }, "custom:reviewer": { enabled: true, note: "kept" } } })).toEqual([]);
    expect(validator.validate({ ...base, users: { usr_a: { agents: { "plugin:sales:call-prep": { enabled: false } }, skills: {}, other: 1 } } })).toEqual([]);
    expect(validator.validate({ ...base, agents: { "custom:reviewer": { enabled: "no" } } }).map((p) => p.path)).toEqual(["agents.custom:reviewer.enabled"]);
    expect(validator.validate({ ...base, agents: { "custom:reviewer": {} } }).map((p) => p.path)).toEqual(["agents.custom:reviewer.enabled"]);
    expect(validator.validate({ ...base, users: { usr_a: { agents: { "custom:reviewer": { enabled: 1 } } } } })).not.toEqual([]);
  });
});

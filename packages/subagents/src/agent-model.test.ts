import type { Config } from "@thinktank/core";
import { describe, expect, it } from "vitest";
import { agentModelName } from "./agent-model.js";

const config = {
  subagents: { models: { haiku: "small" } },
  models: { default: "big", providers: { big: { provider: "scripted" }, small: { provider: "scripted" }, local: { provider: "scripted" } } },
} as unknown as Pick<Config, "subagents" | "models">;

describe("agentModelName", () => {
  it("maps aliases through subagents.models and keeps configured names; everything else is the lead's model", () => {
    expect(agentModelName({ model: "haiku" }, config)).toBe("small");
    expect(agentModelName({ model: "Haiku" }, config)).toBe("small");
    expect(agentModelName({ model: "sonnet" }, config)).toBeUndefined();
    expect(agentModelName({ model: "local" }, config)).toBe("local");
    expect(agentModelName({ model: "claude-opus-4" }, config)).toBeUndefined();
    expect(agentModelName({ model: "inherit" }, config)).toBeUndefined();
    expect(agentModelName({}, config)).toBeUndefined();
    expect(agentModelName({ model: "toString" }, config)).toBeUndefined();
  });
});

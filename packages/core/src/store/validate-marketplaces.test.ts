import { describe, expect, it } from "vitest";
import { ExtensionsValidator } from "./validate-extensions.js";

const base = { mcpServers: {}, skills: {}, plugins: {}, tools: {} };

describe("the optional marketplaces section", () => {
  it("is not required, and each entry is checked when it is there", () => {
    const validator = new ExtensionsValidator();
    expect(validator.validate(base)).toEqual([]);
    expect(validator.validate({ ...base, marketplaces: { team: { source: { source: "github", repo: "acme/plugins", ref: "main" }, pinned: { commit: "a".repeat(40) } } } })).toEqual([]);
    expect(validator.validate({ ...base, marketplaces: [] })).toEqual([expect.objectContaining({ path: "marketplaces", message: "must be an object" })]);
    const problems = validator.validate({ ...base, marketplaces: { bad: { source: { source: "ftp" }, pinned: { commit: "nope" } }, bare: {} } });
    expect(problems.map((p) => p.path)).toEqual(["marketplaces.bad.source.source", "marketplaces.bad.pinned.commit", "marketplaces.bare.source"]);
  });
});

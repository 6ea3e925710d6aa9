import path from "node:path";
import { corpusDir, makeTempDir, needs, writeTree } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { entryManifest } from "./entry-manifest.js";
import { sourceTypeOf } from "./plugin-source-resolvers.js";
import { readMarketplace } from "./read-marketplace.js";

let cleanup = (): void => {};
afterEach(() => cleanup());

describe("readMarketplace", () => {
  it("parses both corpus marketplaces", needs("corpus"), () => {
    const kwp = readMarketplace(path.join(corpusDir(), "knowledge-work-plugins"));
    expect(kwp).toMatchObject({ name: "knowledge-work-plugins", owner: { name: "Anthropic" }, root: path.join(corpusDir(), "knowledge-work-plugins"), problems: [] });
    expect(kwp.plugins).toHaveLength(94);
    const types: Record<string, number> = {};
    for (const entry of kwp.plugins) types[sourceTypeOf(entry.source)] = (types[sourceTypeOf(entry.source)] ?? 0) + 1;
    expect(types).toEqual({ relative: 22, url: 44, "git-subdir": 28 });

    const skills = readMarketplace(path.join(corpusDir(), "anthropic-skills", ".claude-plugin", "marketplace.json"));
    expect(skills.name).toBe("anthropic-agent-skills");
    expect(skills.metadata).toEqual({ description: "Anthropic example skills", version: "1.0.0" });
    expect(skills.plugins.map((p) => [p.name, p.source, p.strict])).toEqual([
      ["document-skills", "./", false],
      ["example-skills", "./", false],
      ["claude-api", "./", false],
    ]);
    expect(entryManifest(skills.plugins[2]!, undefined).manifest).toEqual({ name: "claude-api", description: skills.plugins[2]!.description, skills: ["./skills/claude-api"] });
  });

  it("skips bad entries with a reason and keeps the others and unknown keys", () => {
    const temp = makeTempDir();
    cleanup = temp.cleanup;
    writeTree(temp.dir, {
      "m/.claude-plugin/marketplace.json": JSON.stringify({
        name: "m",
        extra: { kept: true },
        plugins: [{ name: "ok", source: "./ok", category: "x" }, { source: "./nameless" }, { name: "ok", source: "./again" }, { name: "weird", source: 5 }, { name: "strict", source: "./s", strict: "yes" }, "text"],
      }),
    });
    const marketplace = readMarketplace(path.join(temp.dir, "m"));
    expect(marketplace.plugins).toEqual([{ name: "ok", source: "./ok", category: "x" }]);
    expect(marketplace.problems).toEqual([
      "plugins[1]: 'name' must be a non-empty string (got nothing)",
      "plugins[2]: 'ok' is listed twice; the first entry is used",
      "plugins[3]: 'weird': 'source' must be a relative path or an object with a string 'source' type (got number 5)",
      "plugins[4]: 'strict': 'strict' must be true or false",
      "plugins[5]: must be an object (got string \"text\")",
    ]);
  });

  it("refuses a pluginRoot outside the marketplace", () => {
    const temp = makeTempDir();
    cleanup = temp.cleanup;
    writeTree(temp.dir, { "m/marketplace.json": JSON.stringify({ name: "m", metadata: { pluginRoot: "../.." }, plugins: [] }) });
    expect(() => readMarketplace(path.join(temp.dir, "m"))).toThrow(/'metadata.pluginRoot' "..\/.." must stay inside the marketplace folder/);
  });
});

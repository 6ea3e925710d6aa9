import path from "node:path";
import { isThinktankError } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, describe, expect, it } from "vitest";
import { readSkillResource } from "./read-skill-resource.js";
import { readSkillContextSpec } from "./skill-context-spec.js";

const temp = makeTempDir("tt-skill-resource-");
afterAll(() => temp.cleanup());
const noServers = {
  readResource: () => Promise.reject(new Error("no MCP server in this test")),
};

describe("readSkillResource", () => {
  writeTree(temp.dir, {
    "ops/SKILL.md": "---\nname: ops\ndescription: d\n---\nbody\n",
    "ops/references/runbook.md": "Restart the service.\n",
    "ops/references/big.txt": "é".repeat(150_000),
    "ops/resources.json": JSON.stringify([
      { uri: "ops://runbook", description: "The runbook", file: "references/runbook.md" },
      { uri: "ops://big", description: "Too big", file: "references/big.txt" },
    ]),
  });
  const { resources } = readSkillContextSpec(path.join(temp.dir, "ops"));

  it("reads a file resource of the skill", async () => {
    expect(await readSkillResource(resources, "ops://runbook", noServers)).toBe("Restart the service.\n");
  });

  it("cuts a resource at 200,000 bytes and says so", async () => {
    const text = await readSkillResource(resources, "ops://big", noServers);
    expect(text.endsWith("\n[... truncated at 200000 bytes]")).toBe(true);
    expect(text.startsWith("é".repeat(100_000))).toBe(true);
  });

  it("answers an unknown uri with NOT_FOUND naming the uris that exist", async () => {
    const failure = await readSkillResource(resources, "ops://nope", noServers).catch((error: unknown) => error);
    expect(isThinktankError(failure) && failure.code).toBe("NOT_FOUND");
    expect((failure as Error).message).toBe('no resource "ops://nope" in this skill; it has ops://runbook, ops://big');
  });
});

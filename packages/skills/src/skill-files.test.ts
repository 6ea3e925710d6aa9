import fs from "node:fs";
import path from "node:path";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { describe, expect, it } from "vitest";
import { listSkillFiles } from "./skill-files.js";

describe("listSkillFiles", () => {
  it("lists files sorted, a link as a link (never followed), and cuts at maxEntries", async () => {
    const { dir, cleanup } = makeTempDir("skill-files-");
    writeTree(dir, { "SKILL.md": "---\nname: x\n---\n", "scripts/run.py": "print(1)\n", "references/a.md": "a" });
    fs.mkdirSync(path.join(dir, "outside"));
    fs.symlinkSync("/etc", path.join(dir, "etc-link"));
    const { files, truncated } = await listSkillFiles(dir);
    expect(truncated).toBe(false);
    expect(files).toEqual([
      { path: "SKILL.md", kind: "file", bytes: 16 },
      { path: "etc-link", kind: "link", bytes: 4 },
      { path: "references/a.md", kind: "file", bytes: 1 },
      { path: "scripts/run.py", kind: "file", bytes: 9 },
    ]);
    expect(await listSkillFiles(dir, { maxEntries: 2 })).toMatchObject({ truncated: true, files: [{ path: "SKILL.md" }, { path: "etc-link" }] });
    cleanup();
  });
});

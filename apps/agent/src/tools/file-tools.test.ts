import fs from "node:fs";
import path from "node:path";
import { loadConfig } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, describe, expect, it } from "vitest";
import { createFileToolsProvider } from "./file-tools.js";
import { resolveVirtualPath } from "./virtual-paths.js";

const temp = makeTempDir("tt-files-");
afterAll(() => temp.cleanup());
writeTree(temp.dir, {
  "skills/public/notes/SKILL.md": "line 1\nline 2\nline 3\n",
  "outside/secret.txt": "do not read",
});
fs.symlinkSync(path.join(temp.dir, "outside"), path.join(temp.dir, "skills/public/escape"));
const mounts = [{ virtualPath: "/mnt/skills", hostPath: path.join(temp.dir, "skills"), writable: false }];

describe("resolveVirtualPath", () => {
  it("maps a path inside a mount", () => {
    expect(resolveVirtualPath("/mnt/skills/public/notes/SKILL.md", mounts)).toMatchObject({ ok: true, hostPath: path.join(temp.dir, "skills/public/notes/SKILL.md") });
  });

  it("rejects relative paths, other folders, .. escapes and symlinks out of the mount", () => {
    expect(resolveVirtualPath("skills/x", mounts)).toMatchObject({ ok: false, message: expect.stringContaining("must be absolute") });
    expect(resolveVirtualPath("/etc/passwd", mounts)).toMatchObject({ ok: false, message: expect.stringContaining("outside the allowed folders") });
    expect(resolveVirtualPath("/mnt/skills/../../etc/passwd", mounts)).toMatchObject({ ok: false });
    expect(resolveVirtualPath("/mnt/skills-other/x", mounts)).toMatchObject({ ok: false });
    expect(resolveVirtualPath("/mnt/skills/public/escape/secret.txt", mounts)).toMatchObject({ ok: false, message: expect.stringContaining("leads outside /mnt/skills") });
  });
});

describe("file tools", async () => {
  const config = loadConfig({ cwd: temp.dir, env: {} });
  const provider = createFileToolsProvider({ skillsContainerPath: "/mnt/skills", skillsHostPath: path.join(temp.dir, "skills") });
  const contribution = await provider.contribute({ config, threadId: "t1", runId: "r1", now: new Date(0), userDataDir: path.join(temp.dir, "user-data", "t1") });
  const byName = Object.fromEntries((contribution.tools ?? []).map((tool) => [tool.name, tool]));

  it("reads a file, or a range of its lines", async () => {
    expect(await byName.read_file?.invoke({ path: "/mnt/skills/public/notes/SKILL.md" })).toBe("line 1\nline 2\nline 3\n");
    expect(await byName.read_file?.invoke({ path: "/mnt/skills/public/notes/SKILL.md", offset: 2, limit: 1 })).toBe("line 2");
  });

  it("lists folders, including the thread's own user-data folders", async () => {
    expect(await byName.ls?.invoke({ path: "/mnt/skills/public" })).toBe("escape\nnotes/");
    fs.writeFileSync(path.join(temp.dir, "user-data", "t1", "workspace", "a.txt"), "x");
    expect(await byName.ls?.invoke({ path: "/mnt/user-data/workspace" })).toBe("a.txt");
    expect(await byName.ls?.invoke({ path: "/mnt/user-data/outputs" })).toBe("(empty folder)");
  });

  it("refuses paths outside the mounts with a clear error", async () => {
    await expect(byName.read_file?.invoke({ path: "/etc/passwd" })).rejects.toThrow(/outside the allowed folders/);
    await expect(byName.read_file?.invoke({ path: "/mnt/skills/public/escape/secret.txt" })).rejects.toThrow(/leads outside/);
    await expect(byName.read_file?.invoke({ path: "/mnt/skills/public" })).rejects.toThrow(/is a folder/);
  });
});

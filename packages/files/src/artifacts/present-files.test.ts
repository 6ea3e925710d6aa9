import fs from "node:fs";
import path from "node:path";
import { VirtualFileSystem } from "@thinktank/sandbox";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, describe, expect, it } from "vitest";
import { presentFiles } from "./present-files.js";

const temp = makeTempDir("tt-present-");
afterAll(() => temp.cleanup());
writeTree(temp.dir, {
  "user/outputs/summary.md": "# Summary\n",
  "user/outputs/charts/q3 growth.svg": "<svg/>",
  "user/uploads/data.csv": "a,b\n",
  "workspace/notes.txt": "notes",
  "skill/SKILL.md": "---\nname: notes\n---\n",
  "outside/secret.txt": "secret",
});
fs.symlinkSync(path.join(temp.dir, "outside/secret.txt"), path.join(temp.dir, "user/outputs/leak.txt"));
fs.mkdirSync(path.join(temp.dir, "user/outputs/empty"));
const folders = { workspace: path.join(temp.dir, "workspace"), uploads: path.join(temp.dir, "user/uploads"), outputs: path.join(temp.dir, "user/outputs") };
const skill = { enabled: true, dir: path.join(temp.dir, "skill"), containerDir: "/mnt/skills/public/notes" };
const skills = {
  snapshot: async () => ({ skills: [skill] }),
  resolvePath: async (virtualPath: string) => ({ skill, file: path.join(skill.dir, virtualPath.slice(skill.containerDir.length)), virtualPath }),
};
const files = new VirtualFileSystem({ skills, folders });

describe("presentFiles", () => {
  it("describes files under outputs and the workspace as artifacts with their download routes", async () => {
    const result = await presentFiles(files, "t-1", ["/mnt/user-data/outputs/summary.md", "/mnt/user-data/outputs/charts/q3 growth.svg", "/mnt/user-data/workspace/notes.txt", "/mnt/user-data/outputs/./summary.md"]);
    expect(result).toEqual({
      ok: true,
      artifacts: [
        { path: "/mnt/user-data/outputs/summary.md", name: "summary.md", size: 10, mime_type: "text/markdown", url: "/threads/t-1/files/outputs/summary.md" },
        { path: "/mnt/user-data/outputs/charts/q3 growth.svg", name: "q3 growth.svg", size: 6, mime_type: "image/svg+xml", url: "/threads/t-1/files/outputs/charts/q3%20growth.svg" },
        { path: "/mnt/user-data/workspace/notes.txt", name: "notes.txt", size: 5, mime_type: "text/plain", url: "/threads/t-1/files/workspace/notes.txt" },
      ],
    });
  });

  it("refuses uploads, skills and paths outside the thread's folders, naming each refused path", async () => {
    const uploads = await presentFiles(files, "t-1", ["/mnt/user-data/uploads/data.csv"]);
    expect(uploads).toMatchObject({ ok: false, code: "INVALID_PATH", message: expect.stringContaining("is the user's own upload") });
    const skillFile = await presentFiles(files, "t-1", ["/mnt/skills/public/notes/SKILL.md"]);
    expect(skillFile).toMatchObject({ ok: false, code: "INVALID_PATH", message: expect.stringContaining("is not under /mnt/user-data/outputs") });
    const both = await presentFiles(files, "t-1", ["/etc/passwd", "/mnt/user-data/outputs/summary.md", "relative.md"]);
    expect(both).toMatchObject({ ok: false, code: "INVALID_PATH" });
    expect(both.ok ? "" : both.message).toMatch(/\/etc\/passwd is outside.*; path "relative.md" must be absolute/);
  });

  it("refuses traversal, a symbolic link out of outputs, folders and missing files", async () => {
    expect(await presentFiles(files, "t-1", ["/mnt/user-data/outputs/../uploads/data.csv"])).toMatchObject({ ok: false, code: "PATH_TRAVERSAL" });
    expect(await presentFiles(files, "t-1", ["/mnt/user-data/outputs/%2e%2e/x"])).toMatchObject({ ok: false, code: "PATH_TRAVERSAL" });
    expect(await presentFiles(files, "t-1", ["/mnt/user-data/outputs/leak.txt"])).toMatchObject({ ok: false, code: "PATH_TRAVERSAL" });
    expect(await presentFiles(files, "t-1", ["/mnt/user-data/outputs/empty"])).toMatchObject({ ok: false, code: "VALIDATION_FAILED", message: expect.stringContaining("is a folder") });
    expect(await presentFiles(files, "t-1", ["/mnt/user-data/outputs/nope.md"])).toMatchObject({ ok: false, code: "NOT_FOUND" });
  });

  it("refuses no paths, too many paths and paths that are not strings", async () => {
    expect(await presentFiles(files, "t-1", [])).toMatchObject({ ok: false, code: "VALIDATION_FAILED" });
    expect(await presentFiles(files, "t-1", "/mnt/user-data/outputs/summary.md")).toMatchObject({ ok: false, code: "VALIDATION_FAILED" });
    expect(await presentFiles(files, "t-1", Array(3).fill("/mnt/user-data/outputs/summary.md"), { maxFiles: 2 })).toMatchObject({ ok: false, code: "VALIDATION_FAILED", message: expect.stringContaining("at most 2") });
    expect(await presentFiles(files, "t-1", [42])).toMatchObject({ ok: false, code: "INVALID_PATH" });
  });
});

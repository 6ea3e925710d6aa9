import fs from "node:fs";
import path from "node:path";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, describe, expect, it } from "vitest";
import { FileAccess } from "./file-operations.js";
import { VirtualFileSystem } from "./virtual-file-system.js";

const temp = makeTempDir("tt-file-access-");
writeTree(temp.dir, {
  "outside/secret.txt": "do not read",
  "user/outputs/report.md": "# Report\n",
  "user/outputs/charts/a.svg": "<svg/>",
  "user/outputs/charts/deep/b.txt": "b",
  "user/uploads/input.csv": "a,b\n",
});
const folders = { workspace: path.join(temp.dir, "user/workspace"), uploads: path.join(temp.dir, "user/uploads"), outputs: path.join(temp.dir, "user/outputs") };
fs.symlinkSync(path.join(temp.dir, "outside/secret.txt"), path.join(folders.outputs, "leak.txt"));
fs.symlinkSync(path.join(temp.dir, "outside"), path.join(folders.outputs, "leakdir"));
fs.symlinkSync("report.md", path.join(folders.outputs, "inside-link.md"));
afterAll(() => temp.cleanup());

const noSkills = { snapshot: async () => ({ skills: [] }), resolvePath: async () => Promise.reject(new Error("no skills")) };
const access = new FileAccess(new VirtualFileSystem({ skills: noSkills, folders }));

describe("FileAccess: the thread files API's view of the same folders", () => {
  it("walks a folder recursively, sorted, skipping every link (out or in), bounded", async () => {
    const walked = await access.walk("/mnt/user-data/outputs", 100);
    expect(walked.files.map((file) => file.path)).toEqual(["charts/a.svg", "charts/deep/b.txt", "report.md"]);
    expect(walked.truncated).toBe(false);
    const bounded = await access.walk("/mnt/user-data/outputs", 2);
    expect([bounded.files.length, bounded.truncated]).toEqual([2, true]);
    expect((await access.walk("/mnt/user-data/workspace", 10)).files).toEqual([]);
  });

  it("bounds the work of a walk by the entries it looks at, empty folders included", async () => {
    const crowded = path.join(folders.workspace, "crowded");
    fs.mkdirSync(crowded, { recursive: true });
    for (let index = 0; index < 500; index++) fs.mkdirSync(path.join(crowded, `empty-${index}`));
    fs.writeFileSync(path.join(folders.workspace, "a-file.txt"), "x");
    const walked = await access.walk("/mnt/user-data/workspace", 5);
    expect(walked.truncated).toBe(true);
    expect(walked.files.map((file) => file.path)).toEqual(["a-file.txt"]);
    fs.rmSync(crowded, { recursive: true });
  });

  it("opens a file through its held folders, and refuses links and escapes", async () => {
    const opened = await access.open("/mnt/user-data/outputs/charts/deep/b.txt");
    expect(fs.readFileSync(opened.fd, "utf8")).toBe("b");
    fs.closeSync(opened.fd);
    // A link that stays inside the folder reads its target there.
    const inside = await access.open("/mnt/user-data/outputs/inside-link.md");
    expect(fs.readFileSync(inside.fd, "utf8")).toBe("# Report\n");
    fs.closeSync(inside.fd);
    for (const refused of ["/mnt/user-data/outputs/leak.txt", "/mnt/user-data/outputs/leakdir/secret.txt"]) {
      await expect(access.open(refused), refused).rejects.toMatchObject({ code: "PATH_TRAVERSAL" });
    }
    await expect(access.open("/mnt/user-data/outputs/../../outside/secret.txt")).rejects.toMatchObject({ code: "PATH_TRAVERSAL" });
    await expect(access.open("/mnt/user-data/outputs/missing.txt")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(access.open("/mnt/user-data/outputs/charts")).rejects.toMatchObject({ code: "VALIDATION_FAILED" });
  });

  it("removes a file, uploads included; a link itself, never what it points to; never a folder", async () => {
    await access.remove("/mnt/user-data/uploads/input.csv");
    expect(fs.existsSync(path.join(folders.uploads, "input.csv"))).toBe(false);
    await access.remove("/mnt/user-data/outputs/inside-link.md");
    expect([fs.existsSync(path.join(folders.outputs, "inside-link.md")), fs.readFileSync(path.join(folders.outputs, "report.md"), "utf8")]).toEqual([false, "# Report\n"]);
    await expect(access.remove("/mnt/user-data/outputs/leak.txt")).rejects.toMatchObject({ code: "PATH_TRAVERSAL" });
    await expect(access.remove("/mnt/user-data/outputs/leakdir/secret.txt")).rejects.toMatchObject({ code: "PATH_TRAVERSAL" });
    await expect(access.remove("/mnt/user-data/outputs/charts")).rejects.toMatchObject({ code: "VALIDATION_FAILED" });
    await expect(access.remove("/mnt/user-data/outputs/gone.txt")).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(fs.existsSync(path.join(temp.dir, "outside/secret.txt"))).toBe(true);
  });
});

import fs from "node:fs";
import path from "node:path";
import { SkillsSnapshotter, defaultSkillSources } from "@thinktank/skills";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, describe, expect, it } from "vitest";
import { FileOperations } from "./file-operations.js";
import { VirtualFileSystem } from "./virtual-file-system.js";

const temp = makeTempDir("tt-files-");
const skillsRoot = path.join(temp.dir, "skills");
writeTree(temp.dir, {
  "skills/public/notes/SKILL.md": "---\nname: notes\ndescription: Keeps notes\n---\nline 1\nline 2\nline 3\n",
  "skills/public/notes/references/style.md": "Write short sentences.\n",
  "skills/public/hidden/SKILL.md": "---\nname: hidden\ndescription: Disabled in the settings\n---\nsecret plan\n",
  "skills/custom/mine/SKILL.md": "---\nname: mine\ndescription: A custom one\n---\nbody\n",
  "skills/custom/mine/inner/SKILL.md": "---\nname: inner\ndescription: A skill inside another\n---\nbody\n",
  "outside/secret.txt": "do not read",
  "user/uploads/input.csv": "a,b\n1,2\n",
});
fs.symlinkSync(path.join(temp.dir, "outside"), path.join(skillsRoot, "public/notes/escape"));
const folders = { workspace: path.join(temp.dir, "user/workspace"), uploads: path.join(temp.dir, "user/uploads"), outputs: path.join(temp.dir, "user/outputs") };
const settings = { document: { skills: { "public:hidden": { enabled: false } } }, revision: 1 };
const skills = new SkillsSnapshotter({ sources: defaultSkillSources(skillsRoot), settings: { read: async () => settings }, watch: false });
afterAll(() => {
  skills.close();
  temp.cleanup();
});

const files = new VirtualFileSystem({ skills, folders });
const operations = new FileOperations(files, { maxWriteBytes: 1000 });

describe("file operations over the virtual folders", () => {
  it("read a skill's SKILL.md and the file it points to, whole or a range of lines", async () => {
    expect(await operations.read("/mnt/skills/public/notes/SKILL.md")).toContain("line 2");
    expect(await operations.read("/mnt/skills/public/notes/SKILL.md", 6, 1)).toBe("line 2");
    expect(await operations.read("/mnt/skills/public/notes/./references//style.md")).toBe("Write short sentences.\n");
  });

  it("list from the top down without showing disabled skills", async () => {
    expect(await operations.list("/")).toBe("mnt/");
    expect(await operations.list("/mnt")).toBe("skills/\nuser-data/");
    expect(await operations.list("/mnt/skills")).toBe("custom/\npublic/");
    expect(await operations.list("/mnt/skills/public")).toBe("notes/");
    expect(await operations.list("/mnt/skills/public/notes")).toBe("SKILL.md\nescape\nreferences/");
    expect(await operations.list("/mnt/user-data")).toBe("outputs/\nuploads/\nworkspace/");
    expect(await operations.list("/mnt/user-data/outputs")).toBe("(empty folder)");
  });

  it("refuse a disabled skill's files", async () => {
    await expect(operations.read("/mnt/skills/public/hidden/SKILL.md")).rejects.toMatchObject({ code: "SKILL_NOT_FOUND", message: expect.stringMatching(/disabled/) });
    await expect(operations.list("/mnt/skills/public/hidden")).rejects.toMatchObject({ code: "SKILL_NOT_FOUND" });
  });

  it("refuse escapes: other folders, relative paths, '..', encoded dots, backslashes, NUL, symlinks out", async () => {
    await expect(operations.read("/etc/passwd")).rejects.toMatchObject({ code: "INVALID_PATH", message: expect.stringMatching(/outside the folders you can use/) });
    await expect(operations.read("notes.md")).rejects.toMatchObject({ code: "INVALID_PATH", message: expect.stringMatching(/must be absolute/) });
    await expect(operations.read("/mnt/skills/public/notes/../../../outside/secret.txt")).rejects.toMatchObject({ code: "PATH_TRAVERSAL" });
    await expect(operations.read("/mnt/user-data/workspace/../../outside/secret.txt")).rejects.toMatchObject({ code: "PATH_TRAVERSAL" });
    await expect(operations.read("/mnt/skills/public/notes/%2e%2e/hidden/SKILL.md")).rejects.toMatchObject({ code: "PATH_TRAVERSAL" });
    await expect(operations.write("/mnt/user-data/workspace/%2E%2E/x.txt", "x")).rejects.toMatchObject({ code: "PATH_TRAVERSAL" });
    await expect(operations.read("/mnt/skills\\public\\notes\\SKILL.md")).rejects.toMatchObject({ code: "INVALID_PATH", message: expect.stringMatching(/backslash/) });
    await expect(operations.read("/mnt/user-data/workspace/a\u0000b")).rejects.toMatchObject({ code: "INVALID_PATH", message: expect.stringMatching(/NUL/) });
    await expect(operations.read("/mnt/skills/public/notes/escape/secret.txt")).rejects.toMatchObject({ code: "PATH_TRAVERSAL" });
    await expect(operations.read("/mnt/user-data/elsewhere/x")).rejects.toMatchObject({ code: "INVALID_PATH" });
  });

  it("refuse symlinks in the workspace that lead out, for reads and writes, even dangling ones", async () => {
    files.userFolder("workspace");
    fs.symlinkSync(path.join(temp.dir, "outside"), path.join(folders.workspace, "out"));
    fs.symlinkSync(path.join(temp.dir, "outside", "new.txt"), path.join(folders.workspace, "dangling"));
    await expect(operations.read("/mnt/user-data/workspace/out/secret.txt")).rejects.toMatchObject({ code: "PATH_TRAVERSAL" });
    await expect(operations.write("/mnt/user-data/workspace/out/new.txt", "x")).rejects.toMatchObject({ code: "PATH_TRAVERSAL" });
    await expect(operations.write("/mnt/user-data/workspace/dangling", "x")).rejects.toMatchObject({ code: "PATH_TRAVERSAL" });
    expect(fs.existsSync(path.join(temp.dir, "outside", "new.txt"))).toBe(false);
    fs.rmSync(path.join(folders.workspace, "out"));
    fs.rmSync(path.join(folders.workspace, "dangling"));
  });

  it("write only where writable: never in /mnt/skills or uploads", async () => {
    await expect(operations.write("/mnt/skills/public/notes/SKILL.md", "x")).rejects.toMatchObject({ code: "READ_ONLY_PATH" });
    await expect(operations.write("/mnt/skills/public/new.md", "x")).rejects.toMatchObject({ code: expect.stringMatching(/^(READ_ONLY_PATH|SKILL_NOT_FOUND)$/) });
    await expect(operations.replace("/mnt/user-data/uploads/input.csv", "a", "b")).rejects.toMatchObject({ code: "READ_ONLY_PATH" });
    expect(fs.readFileSync(path.join(skillsRoot, "public/notes/SKILL.md"), "utf8")).toContain("line 1");
    expect(await operations.read("/mnt/user-data/uploads/input.csv")).toBe("a,b\n1,2\n");
  });

  it("write, append and read back, creating folders; refuse content over the limit and leave the file as it was", async () => {
    expect(await operations.write("/mnt/user-data/workspace/deep/er/notes.md", "first\n")).toBe("wrote 6 bytes to /mnt/user-data/workspace/deep/er/notes.md");
    await operations.write("/mnt/user-data/workspace/deep/er/notes.md", "second\n", true);
    expect(await operations.read("/mnt/user-data/workspace/deep/er/notes.md")).toBe("first\nsecond\n");
    await expect(operations.write("/mnt/user-data/workspace/deep/er/notes.md", "x".repeat(1001))).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    expect(fs.readFileSync(path.join(folders.workspace, "deep/er/notes.md"), "utf8")).toBe("first\nsecond\n");
    await operations.write("/mnt/user-data/outputs/report.md", "# Report\n");
    expect(fs.readFileSync(path.join(folders.outputs, "report.md"), "utf8")).toBe("# Report\n");
  });

  it("str_replace one exact occurrence, all of them when asked, and says why it refuses", async () => {
    await operations.write("/mnt/user-data/workspace/edit.txt", "alpha beta alpha\n");
    await expect(operations.replace("/mnt/user-data/workspace/edit.txt", "alpha", "A")).rejects.toMatchObject({ code: "VALIDATION_FAILED", message: expect.stringMatching(/^old_str appears 2 times/) });
    await expect(operations.replace("/mnt/user-data/workspace/edit.txt", "gamma", "G")).rejects.toMatchObject({ code: "VALIDATION_FAILED", message: expect.stringMatching(/^old_str was not found/) });
    expect(await operations.replace("/mnt/user-data/workspace/edit.txt", "beta", "$& B")).toBe("replaced 1 occurrence in /mnt/user-data/workspace/edit.txt");
    expect(await operations.replace("/mnt/user-data/workspace/edit.txt", "alpha", "A", true)).toBe("replaced 2 occurrences in /mnt/user-data/workspace/edit.txt");
    expect(await operations.read("/mnt/user-data/workspace/edit.txt")).toBe("A $& B A\n");
  });

  it("say what a folder, a missing file or a binary file is", async () => {
    await expect(operations.read("/mnt/skills/public/notes")).rejects.toThrow(/is a folder/);
    await expect(operations.read("/mnt/user-data/workspace/nothing.txt")).rejects.toMatchObject({ code: "NOT_FOUND" });
    fs.writeFileSync(path.join(folders.workspace, "blob.bin"), Buffer.from([1, 0, 2, 3]));
    expect(await operations.read("/mnt/user-data/workspace/blob.bin")).toMatch(/binary file \(4 bytes\)/);
  });
});

describe("the sandbox mounts of a thread", () => {
  it("mount each enabled skill read-only at its virtual folder (a nested one comes with its parent), uploads read-only and outputs writable", async () => {
    const mounts = await files.sandboxMounts();
    expect(mounts).toEqual([
      { hostPath: path.join(skillsRoot, "custom/mine"), sandboxPath: "/mnt/skills/custom/mine" },
      { hostPath: path.join(skillsRoot, "public/notes"), sandboxPath: "/mnt/skills/public/notes" },
      { hostPath: folders.uploads, sandboxPath: "/mnt/user-data/uploads" },
      { hostPath: folders.outputs, sandboxPath: "/mnt/user-data/outputs", writable: true },
    ]);
  });
});

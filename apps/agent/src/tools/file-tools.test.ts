import fs from "node:fs";
import path from "node:path";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { SkillsSnapshotter, defaultSkillSources } from "@thinktank/skills";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, describe, expect, it } from "vitest";
import { createFileTools } from "./file-tools.js";
import { VirtualFileSystem } from "./virtual-file-system.js";

const temp = makeTempDir("tt-files-");
const skillsRoot = path.join(temp.dir, "skills");
writeTree(temp.dir, {
  "skills/public/notes/SKILL.md": "---\nname: notes\ndescription: Keeps notes\n---\nline 1\nline 2\nline 3\n",
  "skills/public/notes/references/style.md": "Write short sentences.\n",
  "skills/public/hidden/SKILL.md": "---\nname: hidden\ndescription: Disabled in the settings\n---\nsecret plan\n",
  "skills/custom/mine/SKILL.md": "---\nname: mine\ndescription: A custom one\n---\nbody\n",
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
const byName: Record<string, StructuredToolInterface> = Object.fromEntries(createFileTools(files, { maxWriteBytes: 1000 }).map((tool) => [tool.name, tool]));
const call = (name: string, args: Record<string, unknown>) => byName[name]!.invoke(args) as Promise<string>;

describe("file tools over the virtual folders", () => {
  it("read a skill's SKILL.md and the file it points to, whole or a range of lines", async () => {
    expect(await call("read_file", { path: "/mnt/skills/public/notes/SKILL.md" })).toContain("line 2");
    expect(await call("read_file", { path: "/mnt/skills/public/notes/SKILL.md", offset: 6, limit: 1 })).toBe("line 2");
    expect(await call("read_file", { path: "/mnt/skills/public/notes/./references//style.md" })).toBe("Write short sentences.\n");
  });

  it("list from the top down without showing disabled skills", async () => {
    expect(await call("ls", { path: "/" })).toBe("mnt/");
    expect(await call("ls", { path: "/mnt" })).toBe("skills/\nuser-data/");
    expect(await call("ls", { path: "/mnt/skills" })).toBe("custom/\npublic/");
    expect(await call("ls", { path: "/mnt/skills/public" })).toBe("notes/");
    expect(await call("ls", { path: "/mnt/skills/public/notes" })).toBe("SKILL.md\nescape\nreferences/");
    expect(await call("ls", { path: "/mnt/user-data" })).toBe("outputs/\nuploads/\nworkspace/");
    expect(await call("ls", { path: "/mnt/user-data/outputs" })).toBe("(empty folder)");
  });

  it("refuse a disabled skill's files", async () => {
    await expect(call("read_file", { path: "/mnt/skills/public/hidden/SKILL.md" })).rejects.toThrow(/^SKILL_NOT_FOUND: .*disabled/);
    await expect(call("ls", { path: "/mnt/skills/public/hidden" })).rejects.toThrow(/^SKILL_NOT_FOUND/);
  });

  it("refuse escapes: other folders, relative paths, '..', encoded dots, backslashes, NUL, symlinks out", async () => {
    await expect(call("read_file", { path: "/etc/passwd" })).rejects.toThrow(/^INVALID_PATH: .*outside the folders you can use/);
    await expect(call("read_file", { path: "notes.md" })).rejects.toThrow(/^INVALID_PATH: .*must be absolute/);
    await expect(call("read_file", { path: "/mnt/skills/public/notes/../../../outside/secret.txt" })).rejects.toThrow(/^PATH_TRAVERSAL/);
    await expect(call("read_file", { path: "/mnt/user-data/workspace/../../outside/secret.txt" })).rejects.toThrow(/^PATH_TRAVERSAL/);
    await expect(call("read_file", { path: "/mnt/skills/public/notes/%2e%2e/hidden/SKILL.md" })).rejects.toThrow(/^PATH_TRAVERSAL/);
    await expect(call("read_file", { path: "/mnt/skills\\public\\notes\\SKILL.md" })).rejects.toThrow(/^INVALID_PATH: .*backslash/);
    await expect(call("read_file", { path: "/mnt/user-data/workspace/a\u0000b" })).rejects.toThrow(/^INVALID_PATH: .*NUL/);
    await expect(call("read_file", { path: "/mnt/skills/public/notes/escape/secret.txt" })).rejects.toThrow(/^PATH_TRAVERSAL/);
    await expect(call("read_file", { path: "/mnt/user-data/elsewhere/x" })).rejects.toThrow(/^INVALID_PATH/);
  });

  it("refuse symlinks in the workspace that lead out, for reads and writes, even dangling ones", async () => {
    files.userFolder("workspace");
    fs.symlinkSync(path.join(temp.dir, "outside"), path.join(folders.workspace, "out"));
    fs.symlinkSync(path.join(temp.dir, "outside", "new.txt"), path.join(folders.workspace, "dangling"));
    await expect(call("read_file", { path: "/mnt/user-data/workspace/out/secret.txt" })).rejects.toThrow(/^PATH_TRAVERSAL/);
    await expect(call("write_file", { path: "/mnt/user-data/workspace/out/new.txt", content: "x" })).rejects.toThrow(/^PATH_TRAVERSAL/);
    await expect(call("write_file", { path: "/mnt/user-data/workspace/dangling", content: "x" })).rejects.toThrow(/^PATH_TRAVERSAL/);
    expect(fs.existsSync(path.join(temp.dir, "outside", "new.txt"))).toBe(false);
    fs.rmSync(path.join(folders.workspace, "out"));
    fs.rmSync(path.join(folders.workspace, "dangling"));
  });

  it("write only where writable: never in /mnt/skills or uploads", async () => {
    await expect(call("write_file", { path: "/mnt/skills/public/notes/SKILL.md", content: "x" })).rejects.toThrow(/^READ_ONLY_PATH/);
    await expect(call("write_file", { path: "/mnt/skills/public/new.md", content: "x" })).rejects.toThrow(/^READ_ONLY_PATH|^SKILL_NOT_FOUND/);
    await expect(call("str_replace", { path: "/mnt/user-data/uploads/input.csv", old_str: "a", new_str: "b" })).rejects.toThrow(/^READ_ONLY_PATH/);
    expect(fs.readFileSync(path.join(skillsRoot, "public/notes/SKILL.md"), "utf8")).toContain("line 1");
    expect(await call("read_file", { path: "/mnt/user-data/uploads/input.csv" })).toBe("a,b\n1,2\n");
  });

  it("write, append and read back, creating folders; refuse content over the limit and leave the file as it was", async () => {
    expect(await call("write_file", { path: "/mnt/user-data/workspace/deep/er/notes.md", content: "first\n" })).toBe("wrote 6 bytes to /mnt/user-data/workspace/deep/er/notes.md");
    await call("write_file", { path: "/mnt/user-data/workspace/deep/er/notes.md", content: "second\n", append: true });
    expect(await call("read_file", { path: "/mnt/user-data/workspace/deep/er/notes.md" })).toBe("first\nsecond\n");
    await expect(call("write_file", { path: "/mnt/user-data/workspace/deep/er/notes.md", content: "x".repeat(1001) })).rejects.toThrow(/^PAYLOAD_TOO_LARGE/);
    expect(fs.readFileSync(path.join(folders.workspace, "deep/er/notes.md"), "utf8")).toBe("first\nsecond\n");
    await call("write_file", { path: "/mnt/user-data/outputs/report.md", content: "# Report\n" });
    expect(fs.readFileSync(path.join(folders.outputs, "report.md"), "utf8")).toBe("# Report\n");
  });

  it("str_replace one exact occurrence, all of them when asked, and says why it refuses", async () => {
    await call("write_file", { path: "/mnt/user-data/workspace/edit.txt", content: "alpha beta alpha\n" });
    await expect(call("str_replace", { path: "/mnt/user-data/workspace/edit.txt", old_str: "alpha", new_str: "A" })).rejects.toThrow(/^VALIDATION_FAILED: old_str appears 2 times/);
    await expect(call("str_replace", { path: "/mnt/user-data/workspace/edit.txt", old_str: "gamma", new_str: "G" })).rejects.toThrow(/^VALIDATION_FAILED: old_str was not found/);
    expect(await call("str_replace", { path: "/mnt/user-data/workspace/edit.txt", old_str: "beta", new_str: "$& B" })).toBe("replaced 1 occurrence in /mnt/user-data/workspace/edit.txt");
    expect(await call("str_replace", { path: "/mnt/user-data/workspace/edit.txt", old_str: "alpha", new_str: "A", replace_all: true })).toBe("replaced 2 occurrences in /mnt/user-data/workspace/edit.txt");
    expect(await call("read_file", { path: "/mnt/user-data/workspace/edit.txt" })).toBe("A $& B A\n");
  });

  it("say what a folder, a missing file or a binary file is", async () => {
    await expect(call("read_file", { path: "/mnt/skills/public/notes" })).rejects.toThrow(/is a folder/);
    await expect(call("read_file", { path: "/mnt/user-data/workspace/nothing.txt" })).rejects.toThrow(/^NOT_FOUND/);
    fs.writeFileSync(path.join(folders.workspace, "blob.bin"), Buffer.from([1, 0, 2, 3]));
    expect(await call("read_file", { path: "/mnt/user-data/workspace/blob.bin" })).toMatch(/binary file \(4 bytes\)/);
  });
});

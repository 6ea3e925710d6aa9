import fs from "node:fs";
import path from "node:path";
import AdmZip from "adm-zip";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempDir } from "@thinktank/testing";
import { exportMemoryZip } from "./export-memory-zip.js";
import { runMemoryCommand, type MemoryCommandResult } from "./memory-commands.js";
import { MemoryStore } from "./memory-store.js";
import type { UserMemory } from "./user-memory.js";

let temp: ReturnType<typeof makeTempDir>;
let store: MemoryStore;
let memory: UserMemory;

beforeEach(() => {
  temp = makeTempDir("memory-");
  store = new MemoryStore({ root: path.join(temp.dir, "memory"), limits: { maxFiles: 4, maxBytes: 2000 } });
  memory = store.forUser("usr_a");
});
afterEach(() => temp.cleanup());

const run = (args: Record<string, unknown>): Promise<MemoryCommandResult> => runMemoryCommand(memory, args);
const ok = async (args: Record<string, unknown>): Promise<string> => {
  const result = await run(args);
  if (!result.ok) throw new Error(result.text);
  return result.text;
};
const refused = async (args: Record<string, unknown>): Promise<string> => {
  const result = await run(args);
  if (result.ok) throw new Error(`expected a refusal, got: ${result.text}`);
  return result.code;
};

describe("the memory tool's commands", () => {
  it("view, create, str_replace, insert, rename and delete do what Anthropic's memory tool does", async () => {
    expect(await ok({ command: "view", path: "/memories" })).toContain("empty");
    expect(await ok({ command: "create", path: "/memories/profile.md", file_text: "Name: Ana\nLikes tea" })).toBe("File created successfully at: /memories/profile.md");
    expect(fs.readFileSync(path.join(store.folderOf("usr_a"), "profile.md"), "utf8")).toBe("Name: Ana\nLikes tea");
    await ok({ command: "str_replace", path: "/memories/profile.md", old_str: "tea", new_str: "green tea" });
    await ok({ command: "insert", path: "/memories/profile.md", insert_line: 1, insert_text: "Role: engineer" });
    expect(await ok({ command: "view", path: "/memories/profile.md" })).toBe("Here's the content of /memories/profile.md with line numbers:\n     1\tName: Ana\n     2\tRole: engineer\n     3\tLikes green tea");
    expect(await ok({ command: "view", path: "/memories/profile.md", view_range: [2, 2] })).toContain("     2\tRole: engineer");
    expect(await ok({ command: "view", path: "/memories/profile.md", view_range: [2, 2] })).not.toContain("Name: Ana");
    await ok({ command: "create", path: "/memories/projects/atlas.md", file_text: "deadline friday" });
    const listing = await ok({ command: "view", path: "/memories" });
    expect(listing).toContain("\t/memories/profile.md");
    expect(listing).toContain("\t/memories/projects/atlas.md");
    expect(await ok({ command: "rename", old_path: "/memories/projects/atlas.md", new_path: "/memories/archive/atlas.md" })).toContain("Successfully renamed");
    expect(await memory.read("/memories/archive/atlas.md")).toBe("deadline friday");
    expect(await ok({ command: "delete", path: "/memories/archive" })).toBe("Successfully deleted /memories/archive");
    expect((await memory.list()).map((file) => file.path)).toEqual(["/memories/profile.md"]);
  });

  it("answers failures as results with their code: missing files, edits that do not apply, bad arguments", async () => {
    await ok({ command: "create", path: "/memories/a.md", file_text: "one two two" });
    expect(await refused({ command: "view", path: "/memories/nope.md" })).toBe("MEMORY_NOT_FOUND");
    expect(await refused({ command: "str_replace", path: "/memories/a.md", old_str: "three", new_str: "x" })).toBe("MEMORY_EDIT_FAILED");
    expect(await refused({ command: "str_replace", path: "/memories/a.md", old_str: "two", new_str: "x" })).toBe("MEMORY_EDIT_FAILED");
    expect(await refused({ command: "insert", path: "/memories/a.md", insert_line: 5, insert_text: "x" })).toBe("MEMORY_EDIT_FAILED");
    expect(await refused({ command: "rename", old_path: "/memories/a.md", new_path: "/memories/a.md" })).toBe("CONFLICT");
    expect(await refused({ command: "delete", path: "/memories" })).toBe("MEMORY_PATH_INVALID");
    expect(await refused({ command: "format", path: "/memories/a.md" })).toBe("VALIDATION_FAILED");
    expect(await refused({ command: "create", path: "/memories/b.md" })).toBe("VALIDATION_FAILED");
    expect(await memory.read("/memories/a.md")).toBe("one two two");
  });

  it("refuses every path that leaves /memories: traversal, encoded traversal, other absolute paths, relative paths, hidden and lying names", async () => {
    for (const bad of ["/memories/../etc/passwd", "/memories/%2e%2e/x", "/etc/passwd", "/memoriesx/a.md", "/mnt/user-data/outputs/a.md", "profile.md", "/memories/.hidden", "/memories/a\u202Egnp.md", "/memories/ａ／b", "/memories/a\\b"]) {
      expect(await refused({ command: "create", path: bad, file_text: "x" }), bad).toBe("MEMORY_PATH_INVALID");
      expect(await refused({ command: "view", path: bad }), bad).toBe("MEMORY_PATH_INVALID");
    }
    expect(await refused({ command: "rename", old_path: "/memories/x", new_path: "/tmp/x" })).toBe("MEMORY_PATH_INVALID");
    expect(fs.existsSync(path.join(temp.dir, "etc"))).toBe(false);
    expect(await memory.list()).toEqual([]);
  });

  it("never follows a link, whether a file or a folder of the memory is one", async () => {
    const secret = path.join(temp.dir, "secret.txt");
    fs.writeFileSync(secret, "SECRET");
    fs.mkdirSync(path.join(temp.dir, "elsewhere"));
    await ok({ command: "create", path: "/memories/a.md", file_text: "a" });
    const folder = store.folderOf("usr_a");
    fs.symlinkSync(secret, path.join(folder, "link.md"));
    fs.symlinkSync(path.join(temp.dir, "elsewhere"), path.join(folder, "dir"));
    expect(await refused({ command: "view", path: "/memories/link.md" })).toBe("MEMORY_PATH_INVALID");
    expect(await refused({ command: "str_replace", path: "/memories/link.md", old_str: "SECRET", new_str: "x" })).toBe("MEMORY_PATH_INVALID");
    expect(await refused({ command: "create", path: "/memories/link.md", file_text: "x" })).toBe("MEMORY_PATH_INVALID");
    expect(await refused({ command: "create", path: "/memories/dir/planted.md", file_text: "x" })).toBe("MEMORY_PATH_INVALID");
    expect(await refused({ command: "delete", path: "/memories/dir" })).toBe("MEMORY_PATH_INVALID");
    expect(fs.readFileSync(secret, "utf8")).toBe("SECRET");
    expect(fs.readdirSync(path.join(temp.dir, "elsewhere"))).toEqual([]);
    expect((await memory.list()).map((file) => file.path)).toEqual(["/memories/a.md"]);
    expect(await ok({ command: "view", path: "/memories" })).not.toContain("link.md");
  });

  it("refuses a user folder that is itself a link", async () => {
    fs.mkdirSync(path.join(temp.dir, "memory"), { recursive: true });
    fs.mkdirSync(path.join(temp.dir, "victim"));
    fs.symlinkSync(path.join(temp.dir, "victim"), store.folderOf("usr_a"));
    expect(await refused({ command: "create", path: "/memories/a.md", file_text: "x" })).toBe("MEMORY_PATH_INVALID");
    expect(fs.readdirSync(path.join(temp.dir, "victim"))).toEqual([]);
  });

  it("keeps within memory.max_kb (one file or all together) and memory.max_files", async () => {
    expect(await refused({ command: "create", path: "/memories/big.md", file_text: "x".repeat(2001) })).toBe("MEMORY_FULL");
    await ok({ command: "create", path: "/memories/a.md", file_text: `start ${"x".repeat(1494)}` });
    expect(await refused({ command: "create", path: "/memories/b.md", file_text: "y".repeat(600) })).toBe("MEMORY_FULL");
    expect(await refused({ command: "str_replace", path: "/memories/a.md", old_str: "start", new_str: "z".repeat(600) })).toBe("MEMORY_FULL");
    expect(await refused({ command: "insert", path: "/memories/a.md", insert_line: 0, insert_text: "z".repeat(600) })).toBe("MEMORY_FULL");
    await ok({ command: "create", path: "/memories/a.md", file_text: "short" });
    for (const name of ["b", "c", "d"]) await ok({ command: "create", path: `/memories/${name}.md`, file_text: name });
    expect(await refused({ command: "create", path: "/memories/e.md", file_text: "e" })).toBe("MEMORY_FULL");
    // Replacing a file is not one more file.
    await ok({ command: "create", path: "/memories/d.md", file_text: "d2" });
    expect((await memory.list()).length).toBe(4);
  });

  it("keeps users apart: each sees only their own folder", async () => {
    await ok({ command: "create", path: "/memories/profile.md", file_text: "A's fact" });
    const other = store.forUser("jwt:Bob/../usr_a");
    expect(store.folderOf("jwt:Bob/../usr_a")).not.toBe(store.folderOf("usr_a"));
    expect(path.dirname(store.folderOf("jwt:Bob/../usr_a"))).toBe(path.join(temp.dir, "memory"));
    expect((await runMemoryCommand(other, { command: "view", path: "/memories/profile.md" })).ok).toBe(false);
    await runMemoryCommand(other, { command: "create", path: "/memories/profile.md", file_text: "B's fact" });
    expect(await memory.read("/memories/profile.md")).toBe("A's fact");
    expect(await other.read("profile.md", { relative: true })).toBe("B's fact");
  });

  it("writes atomically with private modes, serializes concurrent edits, clears and exports", async () => {
    await ok({ command: "create", path: "/memories/log.md", file_text: "" });
    await Promise.all(Array.from({ length: 20 }, (_, index) => ok({ command: "insert", path: "/memories/log.md", insert_line: 0, insert_text: `line ${index}` })));
    expect((await memory.read("/memories/log.md")).split("\n").filter((line) => line.startsWith("line")).length).toBe(20);
    expect(fs.statSync(path.join(store.folderOf("usr_a"), "log.md")).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(store.folderOf("usr_a"))).toEqual(["log.md"]);
    await ok({ command: "create", path: "/memories/sub/x.md", file_text: "x" });
    const zip = new AdmZip(await exportMemoryZip(memory));
    expect(zip.getEntries().map((entry) => entry.entryName).sort()).toEqual(["log.md", "sub/x.md"]);
    expect(await memory.clear()).toBe(2);
    expect(await memory.list()).toEqual([]);
    expect(await ok({ command: "view", path: "/memories" })).toContain("empty");
  });
});

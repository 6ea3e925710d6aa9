import path from "node:path";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { VirtualFileSystem } from "@thinktank/sandbox";
import { SkillsSnapshotter, defaultSkillSources } from "@thinktank/skills";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, describe, expect, it } from "vitest";
import { createFileTools } from "./file-tools.js";

// What the operations do is tested beside them (packages/sandbox/src/workspaces); here, only the wiring.
const temp = makeTempDir("tt-file-tools-");
writeTree(temp.dir, { "skills/public/notes/SKILL.md": "---\nname: notes\ndescription: Keeps notes\n---\nline 1\n" });
const skills = new SkillsSnapshotter({ sources: defaultSkillSources(path.join(temp.dir, "skills")), settings: { read: async () => ({ document: {}, revision: 1 }) }, watch: false });
afterAll(() => {
  skills.close();
  temp.cleanup();
});
const folders = { workspace: path.join(temp.dir, "user/workspace"), uploads: path.join(temp.dir, "user/uploads"), outputs: path.join(temp.dir, "user/outputs") };
const byName: Record<string, StructuredToolInterface> = Object.fromEntries(createFileTools(new VirtualFileSystem({ skills, folders }), { maxWriteBytes: 10 }).map((tool) => [tool.name, tool]));
const call = (name: string, args: Record<string, unknown>) => byName[name]!.invoke(args) as Promise<string>;

describe("the file tools", () => {
  it("are read_file, write_file, str_replace and ls, passing each argument on", async () => {
    expect(Object.keys(byName)).toEqual(["read_file", "write_file", "str_replace", "ls"]);
    expect(await call("write_file", { path: "/mnt/user-data/workspace/a.txt", content: "one\n" })).toBe("wrote 4 bytes to /mnt/user-data/workspace/a.txt");
    expect(await call("write_file", { path: "/mnt/user-data/workspace/a.txt", content: "two\n", append: true })).toBe("appended 4 bytes to /mnt/user-data/workspace/a.txt");
    expect(await call("str_replace", { path: "/mnt/user-data/workspace/a.txt", old_str: "o", new_str: "0", replace_all: true })).toBe("replaced 2 occurrences in /mnt/user-data/workspace/a.txt");
    expect(await call("read_file", { path: "/mnt/user-data/workspace/a.txt", offset: 2, limit: 1 })).toBe("tw0");
    expect(await call("ls", { path: "/mnt/skills/public/notes" })).toBe("SKILL.md");
  });

  it("answer a refusal as an error whose message starts with its code", async () => {
    await expect(call("read_file", { path: "/mnt/user-data/workspace/../secret" })).rejects.toThrow(/^PATH_TRAVERSAL: /);
    await expect(call("write_file", { path: "/mnt/user-data/workspace/b.txt", content: "x".repeat(11) })).rejects.toThrow(/^PAYLOAD_TOO_LARGE: /);
  });
});

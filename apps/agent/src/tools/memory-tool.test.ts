import path from "node:path";
import { MemoryStore } from "@thinktank/memory";
import { makeTempDir } from "@thinktank/testing";
import { afterAll, describe, expect, it } from "vitest";
import { createMemoryTool } from "./memory-tool.js";

const temp = makeTempDir("memory-tool-");
afterAll(() => temp.cleanup());

describe("createMemoryTool", () => {
  const memory = new MemoryStore({ root: path.join(temp.dir, "memory"), limits: { maxFiles: 10, maxBytes: 10_000 } }).forUser("usr_a");

  it("is Anthropic's memory_20250818 type for Anthropic's models and an ordinary tool with the same commands otherwise", async () => {
    const anthropic = await createMemoryTool(memory, { anthropic: true });
    expect((anthropic as { extras?: unknown }).extras).toEqual({ providerToolDefinition: { type: "memory_20250818", name: "memory" } });
    const ordinary = await createMemoryTool(memory, { anthropic: false });
    expect((ordinary as { extras?: unknown }).extras).toBeUndefined();
    expect(Object.keys((ordinary.schema as { properties: object }).properties)).toEqual(["command", "path", "view_range", "file_text", "old_str", "new_str", "insert_line", "insert_text", "old_path", "new_path"]);
    for (const tool of [anthropic, ordinary]) {
      expect(await tool.invoke({ command: "create", path: "/memories/a.md", file_text: `by ${tool === anthropic ? "anthropic" : "ordinary"}` })).toBe("File created successfully at: /memories/a.md");
    }
    expect(await memory.read("/memories/a.md")).toBe("by ordinary");
  });

  it("fails a refused command with its code, as the file tools do", async () => {
    const tool = await createMemoryTool(memory, { anthropic: false });
    await expect(tool.invoke({ command: "view", path: "/etc/passwd" })).rejects.toThrow(/^MEMORY_PATH_INVALID: /);
    await expect(tool.invoke({ command: "view", path: "/memories/missing.md" })).rejects.toThrow(/^MEMORY_NOT_FOUND: /);
  });
});

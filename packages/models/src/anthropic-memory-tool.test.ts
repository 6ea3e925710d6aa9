import { ChatAnthropic } from "@langchain/anthropic";
import { describe, expect, it } from "vitest";
import { anthropicMemoryTool } from "./anthropic-memory-tool.js";

describe("anthropicMemoryTool", () => {
  it("is sent to Anthropic as its own memory tool type and runs the commands through execute", async () => {
    const calls: Record<string, unknown>[] = [];
    const memory = await anthropicMemoryTool(async (args) => {
      calls.push(args);
      return "File created successfully at: /memories/a.md";
    });
    expect(memory.name).toBe("memory");
    const model = new ChatAnthropic({ apiKey: "not-a-key", model: "claude-sonnet-4-5" });
    expect(model.invocationParams({ tools: [memory] } as Parameters<ChatAnthropic["invocationParams"]>[0]).tools).toEqual([{ type: "memory_20250818", name: "memory" }]);
    expect(await memory.invoke({ command: "create", path: "/memories/a.md", file_text: "hi" })).toBe("File created successfully at: /memories/a.md");
    expect(calls).toEqual([{ command: "create", path: "/memories/a.md", file_text: "hi" }]);
  });
});

import fs from "node:fs";
import path from "node:path";
import { ToolMessage, type AIMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { countTokens } from "@thinktank/mcp";
import { ScriptedChatModel } from "@thinktank/models";
import { VirtualFileSystem } from "@thinktank/sandbox";
import { makeTempDir, writeTree } from "@thinktank/testing";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { buildLeadAgentGraph } from "../graph/build-lead-agent-graph.js";
import { toolDefinition } from "../inspect/tool-definition.js";
import { createPresentFilesTool } from "./present-files-tool.js";

// Which paths are refused and why is tested beside presentFiles (packages/files); here, the tool and the graph.
const temp = makeTempDir("tt-present-tool-");
afterAll(() => temp.cleanup());
writeTree(temp.dir, { "user/outputs/summary.md": "# Summary\n", "user/outputs/chart.svg": "<svg/>", "user/uploads/data.csv": "a\n" });
const folders = { workspace: path.join(temp.dir, "workspace"), uploads: path.join(temp.dir, "user/uploads"), outputs: path.join(temp.dir, "user/outputs") };
const skills = { snapshot: async () => ({ skills: [] }), resolvePath: async () => Promise.reject(new Error("no skills")) };
const presentFiles = createPresentFilesTool(new VirtualFileSystem({ skills, folders }), "thread-7");

const model = new ScriptedChatModel({
  script: {
    rules: [
      { when: { last_human: "^show (.+)", step: 0 }, tool_calls: [{ name: "present_files", args: { paths: ["{{match.1}}"] } }] },
      { when: { last_human: "^both", step: 0 }, tool_calls: [{ name: "present_files", args: { paths: ["/mnt/user-data/outputs/chart.svg", "/mnt/user-data/outputs/summary.md"] } }] },
      { when: { after_tool: true }, reply: "done: {{lastToolResult}}" },
    ],
  },
});
const graph = buildLeadAgentGraph({ model, modelName: "scripted", systemPrompt: "ROUTER", tools: [presentFiles] }, new SqliteSaver(new Database(":memory:")));
const send = (content: string, threadId: string) => graph.invoke({ messages: [{ type: "human", content }] } as never, { configurable: { thread_id: threadId } });

const summary = { path: "/mnt/user-data/outputs/summary.md", name: "summary.md", size: 10, mime_type: "text/markdown", url: "/threads/thread-7/files/outputs/summary.md" };
const chart = { path: "/mnt/user-data/outputs/chart.svg", name: "chart.svg", size: 6, mime_type: "image/svg+xml", url: "/threads/thread-7/files/outputs/chart.svg" };

describe("present_files", () => {
  it("records the artifacts on the tool result, on the answer after it and in the thread state, merged by path", async () => {
    const first = await send("show /mnt/user-data/outputs/summary.md", "shown");
    const [, call, result, answer] = first.messages;
    expect((call as AIMessage).tool_calls?.[0]?.name).toBe("present_files");
    expect(result).toBeInstanceOf(ToolMessage);
    expect((result as ToolMessage).artifact).toEqual([summary]);
    expect(result?.additional_kwargs.artifacts).toEqual([summary]);
    expect(result?.content).toBe("Shown to the user: /mnt/user-data/outputs/summary.md (10 bytes)");
    expect(answer?.additional_kwargs.artifacts).toEqual([summary]);
    expect(first.artifacts).toEqual([summary]);

    fs.appendFileSync(path.join(folders.outputs, "summary.md"), "more\n");
    const second = await send("both", "shown");
    expect(second.messages.at(-1)?.additional_kwargs.artifacts).toEqual([chart, { ...summary, size: 15 }]);
    // The first answer keeps what it showed; the state has each path once, newest last.
    expect(second.messages[3]?.additional_kwargs.artifacts).toEqual([summary]);
    expect(second.artifacts).toEqual([chart, { ...summary, size: 15 }]);
    const plain = await send("hello", "shown");
    expect(plain.messages.at(-1)?.additional_kwargs.artifacts).toBeUndefined();
  });

  it("answers a refused path with an error tool message and records nothing", async () => {
    const result = await send("show /mnt/user-data/uploads/data.csv", "refused");
    const tool = result.messages[2] as ToolMessage;
    expect(tool.status).toBe("error");
    expect(tool.content).toContain("INVALID_PATH: /mnt/user-data/uploads/data.csv is the user's own upload");
    expect(tool.additional_kwargs.artifacts).toBeUndefined();
    expect(result.messages.at(-1)?.additional_kwargs.artifacts).toBeUndefined();
    expect(result.artifacts).toEqual([]);
  });

  it("streams the artifacts in the tools node's update and in the state values", async () => {
    const updates: Record<string, { artifacts?: unknown }>[] = [];
    for await (const update of await graph.stream({ messages: [{ type: "human", content: "show /mnt/user-data/outputs/chart.svg" }] } as never, { configurable: { thread_id: "streamed" }, streamMode: "updates" })) updates.push(update as never);
    expect(updates.find((update) => update.tools)?.tools?.artifacts).toEqual([chart]);
    let last: { artifacts?: unknown } | undefined;
    for await (const values of await graph.stream({ messages: [{ type: "human", content: "hello" }] } as never, { configurable: { thread_id: "streamed" }, streamMode: "values" })) last = values as never;
    expect(last?.artifacts).toEqual([chart]);
  });

  it("costs few tokens in every request (62 with o200k_base, as inspect prompt counts it)", () => {
    expect(countTokens(JSON.stringify(toolDefinition(presentFiles)))).toBeLessThanOrEqual(64);
  });
});

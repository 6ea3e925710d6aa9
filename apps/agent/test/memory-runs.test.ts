// Per-user memory through the agent server's API (LangGraph SDK, users' keys, the scripted model):
// thread 1 saves a fact with the memory tool, a new thread's first request carries the <memory>
// digest with it and the model views the file; the system prompt stays byte-identical across a
// thread's turns while memory changes; users never reach each other's memory; memory off (the run's
// configurable, the assistant's setting, the user's own switch) leaves out the tool and the digest.
import fs from "node:fs";
import path from "node:path";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { BaseMessage } from "@langchain/core/messages";
import { Client, type Message } from "@langchain/langgraph-sdk";
import { loadConfig } from "@thinktank/core";
import { MemoryStore } from "@thinktank/memory";
import { countTokens } from "@thinktank/mcp";
import { parseChatScript, ScriptedChatModel } from "@thinktank/models";
import { freePort } from "@thinktank/testing";
import yaml from "js-yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAgentServer, type AgentServer } from "../src/index.js";
import { makeProjectFixture, type ProjectFixture } from "./support/project-fixture.js";

const script = `
rules:
  - id: save
    when: { user_typed: "^remember (.+)$", step: 0 }
    tool_calls:
      - name: memory
        args: { command: create, path: /memories/profile.md, file_text: "{{match.1}}" }
  - id: save-as
    when: { user_typed: "^write (\\\\S+) (.+)$", step: 0 }
    tool_calls:
      - name: memory
        args: { command: create, path: "{{match.1}}", file_text: "{{match.2}}" }
  - id: peek
    when: { user_typed: "^peek (\\\\S+)$", step: 0 }
    tool_calls:
      - name: memory
        args: { command: view, path: "{{match.1}}" }
  - id: answer
    when: { after_tool: true, last_tool_name: memory }
    reply: "memory: {{lastToolResult}}"
  - id: digest
    when: { user_typed: "^what do you know", last_human: "<memory>[\\\\s\\\\S]*likes green tea[\\\\s\\\\S]*</memory>", step: 0 }
    reply: "the digest says the user likes green tea"
  - id: tools
    when: { user_typed: "^can you remember", tool_available: memory }
    reply: "I have a memory tool"
fallback:
  reply: "no memory here: {{userTyped}}"
`;

let project: ProjectFixture;
let server: AgentServer;
let url: string;
const prompts: string[] = [];
const firstRequests: string[] = [];
const clients: Record<string, Client> = {};
const ids: Record<string, string> = {};

beforeAll(async () => {
  project = await makeProjectFixture({ script, config: ["sandbox:", "  warm_pool_size: 0", "code_execution:", "  mode: direct"] });
  const config = loadConfig({ cwd: project.dir, env: { PATH: process.env.PATH ?? "" } });
  // The scripted model, with a callback that records the system prompt and the last message of every call.
  const recorder = BaseCallbackHandler.fromMethods({
    handleChatModelStart(_llm: unknown, messages: BaseMessage[][]) {
      const call = messages[0] ?? [];
      prompts.push(call[0]?.text ?? "");
      firstRequests.push(call.at(-1)?.text ?? "");
    },
  });
  const model = new ScriptedChatModel({ script: parseChatScript(yaml.load(script), "script.yaml"), callbacks: [recorder] });
  server = await buildAgentServer(config, { logger: false, prepare: { createModel: () => model } });
  const port = await freePort();
  await server.app.listen({ host: "127.0.0.1", port });
  url = `http://127.0.0.1:${port}`;
  for (const name of ["alice", "bob"]) {
    const { user, apiKey } = await server.identity.users.create({ name, role: "user" });
    ids[name] = user.id;
    clients[name] = new Client({ apiUrl: url, apiKey, callerOptions: { maxRetries: 0 } });
  }
}, 120_000);

afterAll(async () => {
  await server?.close();
  project?.cleanup();
});

/** One message on a thread as a user (a new thread when none is given); the answer's text and the thread. */
async function say(user: string, content: string, options: { threadId?: string; config?: Record<string, unknown>; assistantId?: string } = {}): Promise<{ answer: string; threadId: string }> {
  const client = clients[user] as Client;
  const threadId = options.threadId ?? (await client.threads.create()).thread_id;
  const values = (await client.runs.wait(threadId, options.assistantId ?? "lead_agent", { input: { messages: [{ type: "human", content }] }, ...(options.config ? { config: { configurable: options.config } } : {}) })) as { messages: Message[] };
  const last = values.messages.at(-1);
  return { answer: typeof last?.content === "string" ? last.content : JSON.stringify(last?.content), threadId };
}

const memoryOf = (user: string) => MemoryStore.fromConfig(loadConfig({ cwd: project.dir, env: {} })).forUser(ids[user] as string);

describe("memory through runs", () => {
  it("thread 1 saves a fact; a new thread's first request carries it in the <memory> digest and the model can view the file", async () => {
    const saved = await say("alice", "remember The user is Ana and likes green tea.");
    expect(saved.answer).toBe("memory: File created successfully at: /memories/profile.md");
    expect(await memoryOf("alice").read("/memories/profile.md")).toBe("The user is Ana and likes green tea.");

    firstRequests.length = 0;
    const second = await say("alice", "what do you know about me?");
    expect(second.answer).toBe("the digest says the user likes green tea");
    expect(firstRequests[0]).toMatch(/^<memory>\n[\s\S]*\/memories\/profile\.md[\s\S]*\n<\/memory>\n\nwhat do you know about me\?$/);
    expect(countTokens(firstRequests[0]?.split("\n\nwhat do you know")[0] ?? "")).toBeLessThanOrEqual(400);
    // The digest is stored once on the thread's first message, and is not in the system prompt.
    const state = (await (clients.alice as Client).threads.getState(second.threadId)).values as { messages: Message[] };
    expect((state.messages[0]?.additional_kwargs as Record<string, unknown>).memory_digest).toContain("likes green tea");
    expect(prompts.at(-1)).not.toContain("<memory>");

    const viewed = await say("alice", "peek /memories/profile.md", { threadId: second.threadId });
    expect(viewed.answer).toContain("1\tThe user is Ana and likes green tea.");
  });

  it("keeps the system prompt byte-identical across three turns of a thread while memory changes between them", async () => {
    const thread = (await (clients.alice as Client).threads.create()).thread_id;
    const seen: string[] = [];
    for (const turn of [1, 2, 3]) {
      prompts.length = 0;
      await say("alice", `write /memories/turn-${turn}.md fact number ${turn}`, { threadId: thread });
      await memoryOf("alice").write(`/memories/between-${turn}.md`, `changed after turn ${turn}`);
      expect(prompts.length).toBe(2);
      seen.push(...prompts);
    }
    expect(new Set(seen).size).toBe(1);
    expect(seen[0]).not.toContain("fact number");
    const state = (await (clients.alice as Client).threads.getState(thread)).values as { messages: Message[] };
    const digests = state.messages.filter((message) => (message.additional_kwargs as Record<string, unknown> | undefined)?.memory_digest !== undefined);
    expect(digests.length).toBe(1);
  });

  it("never lets one user's run reach another's memory, in either direction", async () => {
    await say("bob", "write /memories/bob.md Bob keeps bees.");
    expect(await memoryOf("bob").read("/memories/bob.md")).toBe("Bob keeps bees.");
    const bobView = await say("bob", "peek /memories");
    expect(bobView.answer).toContain("/memories/bob.md");
    expect(bobView.answer).not.toContain("profile.md");
    const aliceView = await say("alice", "peek /memories/bob.md");
    expect(aliceView.answer).toContain("MEMORY_NOT_FOUND");
    // Bob's new thread carries his digest, never Alice's.
    firstRequests.length = 0;
    await say("bob", "what do you know?");
    expect(firstRequests[0]).toContain("Bob keeps bees.");
    expect(firstRequests[0]).not.toContain("green tea");
    // Through the tool, no path leads out: traversal, another folder, Alice's folder on the host.
    const aliceFolder = MemoryStore.fromConfig(loadConfig({ cwd: project.dir, env: {} })).folderOf(ids.alice as string);
    for (const target of ["/memories/../memories/profile.md", `/memories/../../${path.basename(aliceFolder)}/profile.md`, aliceFolder + "/profile.md", "/mnt/user-data/outputs"]) {
      const answer = (await say("bob", `peek ${target}`)).answer;
      expect(answer, target).toContain("MEMORY_PATH_INVALID");
      expect(answer).not.toContain("green tea");
    }
    expect(fs.readdirSync(aliceFolder).sort()).toContain("profile.md");
  });

  it("memory off leaves out the tool and the digest: the run's configurable, the assistant's setting, the user's own switch", async () => {
    expect((await say("alice", "can you remember?")).answer).toBe("I have a memory tool");
    firstRequests.length = 0;
    expect((await say("alice", "what do you know?", { config: { memory: false } })).answer).toBe("no memory here: what do you know?");
    expect(firstRequests[0]).not.toContain("<memory>");
    expect((await say("alice", "can you remember?", { config: { memory: false } })).answer).toBe("no memory here: can you remember?");

    const assistant = await (clients.alice as Client).assistants.create({ graphId: "lead_agent", config: { configurable: { memory: false } } });
    expect((await say("alice", "what do you know?", { assistantId: assistant.assistant_id })).answer).toBe("no memory here: what do you know?");

    await server.runtime.store.update((draft) => {
      draft.users = { ...(draft.users ?? {}), [ids.alice as string]: { memory: { enabled: false } } };
    });
    expect((await say("alice", "can you remember?")).answer).toBe("no memory here: can you remember?");
    expect((await say("bob", "can you remember?")).answer).toBe("I have a memory tool");
    await server.runtime.store.update((draft) => {
      draft.users = { ...(draft.users ?? {}), [ids.alice as string]: { memory: { enabled: true } } };
    });
    firstRequests.length = 0;
    await say("alice", "what do you know?");
    expect(firstRequests[0]).toMatch(/^<memory>\n[\s\S]*\/memories\/profile\.md[\s\S]*<\/memory>\n\nwhat do you know\?$/);
  });

  it("after everything is forgotten, the next thread carries no digest", async () => {
    await memoryOf("alice").clear();
    firstRequests.length = 0;
    expect((await say("alice", "what do you know?")).answer).toBe("no memory here: what do you know?");
    expect(firstRequests[0]).toBe("what do you know?");
  });
});

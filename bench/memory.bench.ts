// Memory (issue 30): the <memory> digest's tokens against memory size (1, 20, 200 files of 2 KB:
// flat at memory.digest_tokens), a memory tool call's p50 (view and create on a 200-file memory,
// beside reading the file with fs), and a run request to the first model call on a new thread with a
// 200-file memory against the same runs with memory off (config.configurable.memory: false),
// interleaved on one server.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { buildAgentServer, type AgentServer } from "@thinktank/agent";
import { loadConfig, operatorId } from "@thinktank/core";
import { countTokens } from "@thinktank/mcp";
import { memoryDigest, MemoryStore, runMemoryCommand, type UserMemory } from "@thinktank/memory";
import { round, summarize, timeIt, type Benchmark, type BenchContext, type Measurement } from "./harness.js";

const budget = 400;
const runs = 60;

/** A 2 KB memory file of varied words (real text tokenizes denser than repeated letters). */
function twoKb(index: number): string {
  const words = ["project", "deadline", "prefers", "concise", "answers", "Python", "reviews", "Tuesday", "budget", "meeting", "notes", "client"];
  let text = `# Note ${index}\n`;
  for (let word = 0; text.length < 2048; word++) text += `${words[(index * 7 + word) % words.length]}${word % 9 === 8 ? ".\n" : " "}`;
  return text.slice(0, 2048);
}

/** Writes `count` files of 2 KB straight into a user's folder. */
function fill(memory: UserMemory, count: number): void {
  fs.mkdirSync(path.join(memory.folder, "notes"), { recursive: true });
  for (let index = 0; index < count; index++) fs.writeFileSync(path.join(memory.folder, "notes", `note-${String(index).padStart(3, "0")}.md`), twoKb(index));
}

/** A bench-local model: notes when its first call in a run comes, answers at once. */
class TimingModel extends BaseChatModel {
  onCall: ((at: number, messages: BaseMessage[]) => void) | undefined;
  _llmType(): string {
    return "timing";
  }
  override bindTools(): TimingModel {
    return this;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.onCall?.(performance.now(), messages);
    return { generations: [{ text: "ok", message: new AIMessage("ok") }] };
  }
}

/** POST /threads, POST /threads/:id/runs, join: ms from the run request to the first model call, and whether its message carried the digest. */
async function firstCall(server: AgentServer, model: TimingModel, memory: boolean): Promise<{ ms: number; digest: boolean }> {
  const thread = (await server.app.inject({ method: "POST", url: "/threads", payload: {} })).json() as { thread_id: string };
  let first: { at: number; digest: boolean } | undefined;
  model.onCall = (at, messages) => (first ??= { at, digest: (messages.at(-1)?.text ?? "").startsWith("<memory>") });
  const start = performance.now();
  const payload = { assistant_id: "lead_agent", input: { messages: [{ type: "human", content: "What should I work on today?" }] }, ...(memory ? {} : { config: { configurable: { memory: false } } }) };
  const created = await server.app.inject({ method: "POST", url: `/threads/${thread.thread_id}/runs`, payload });
  const run = created.json() as { run_id: string };
  await server.app.inject({ method: "GET", url: `/threads/${thread.thread_id}/runs/${run.run_id}/join` });
  model.onCall = undefined;
  if (!first) throw new Error(`the run ended without calling the model: ${created.body.slice(0, 300)}`);
  return { ms: first.at - start, digest: first.digest };
}

async function measure(context: BenchContext): Promise<Measurement[]> {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tt-bench-memory-")));
  let server: AgentServer | undefined;
  try {
    fs.writeFileSync(path.join(dir, "config.yaml"), "data_dir: data\nlog:\n  level: silent\nsandbox:\n  warm_pool_size: 0\ncode_execution:\n  mode: direct\n");
    fs.writeFileSync(path.join(dir, "extensions_config.json"), JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }));
    const config = loadConfig({ cwd: dir, env: { PATH: process.env.PATH ?? "" } });
    const store = MemoryStore.fromConfig(config);
    const results: Measurement[] = [];

    // Digest tokens and build time at 1, 20 and 200 files.
    const sizes = [1, 20, 200];
    const digests = [];
    for (const count of sizes) {
      const memory = store.forUser(`usr_digest_${count}`);
      fill(memory, count);
      const text = (await memoryDigest(memory, { maxTokens: budget, countTokens })) ?? "";
      const time = await timeIt(() => memoryDigest(memory, { maxTokens: budget, countTokens }), { samples: 50, warmup: 5 });
      digests.push({ count, tokens: countTokens(text), ms: time.median, listed: (text.match(/^- \/memories/gm) ?? []).length });
    }
    const largest = digests.at(-1)!;
    results.push({
      name: `\`<memory>\` digest at 1 / 20 / 200 files of 2 KB (memory.digest_tokens ${budget})`,
      value: largest.tokens,
      unit: "tokens at 200 files",
      stats: Object.fromEntries(digests.flatMap((each) => [[`${each.count} files`, `${each.tokens} tokens, ${each.listed} files shown, ${round(each.ms)} ms to build`]])),
      baseline: { name: "the 200 files themselves", value: countTokens(Array.from({ length: 200 }, (_, index) => twoKb(index)).join("\n")), unit: "tokens" },
      target: `<= ${budget} at every size`,
      pass: digests.every((each) => each.tokens <= budget),
    });

    // One memory tool call on a 200-file memory.
    const memory = store.forUser(operatorId);
    fill(memory, 200);
    const file = path.join(memory.folder, "notes", "note-100.md");
    const view = await timeIt(() => runMemoryCommand(memory, { command: "view", path: "/memories/notes/note-100.md" }), { samples: 200, warmup: 20 });
    let written = 0;
    const create = await timeIt(() => runMemoryCommand(memory, { command: "create", path: "/memories/scratch.md", file_text: `fact ${written++}` }), { samples: 100, warmup: 10 });
    const replace = await timeIt(() => runMemoryCommand(memory, { command: "str_replace", path: "/memories/scratch.md", old_str: "fact", new_str: "fact" }), { samples: 100, warmup: 10 });
    const listing = await timeIt(() => runMemoryCommand(memory, { command: "view", path: "/memories" }), { samples: 100, warmup: 10 });
    const plain = await timeIt(() => fs.promises.readFile(file, "utf8"), { samples: 200, warmup: 20 });
    results.push({
      name: "memory tool call (view of one file), 200-file memory",
      value: round(view.median),
      unit: "ms",
      stats: { p95: round(view.p95), "create p50 (atomic, fsync)": round(create.median), "str_replace p50": round(replace.median), "view /memories p50": round(listing.median) },
      baseline: { name: "fs.readFile of the same file", value: round(plain.median), unit: "ms" },
    });

    // Run request to first model call, new threads, 200-file memory on and off, interleaved.
    const model = new TimingModel({});
    server = await buildAgentServer(config, { logger: false, prepare: { createModel: () => model } });
    for (let warm = 0; warm < 5; warm++) {
      await firstCall(server, model, true);
      await firstCall(server, model, false);
    }
    const on: number[] = [];
    const off: number[] = [];
    let carried = 0;
    for (let index = 0; index < runs; index++) {
      const withMemory = await firstCall(server, model, true);
      on.push(withMemory.ms);
      if (withMemory.digest) carried++;
      off.push((await firstCall(server, model, false)).ms);
    }
    const onTime = summarize(on);
    const offTime = summarize(off);
    context.log(`memory: digest ${digests.map((each) => each.tokens).join("/")} tokens; view ${round(view.median)} ms; first call ${round(onTime.median)} ms with memory, ${round(offTime.median)} ms without`);
    results.push({
      name: `POST /threads/:id/runs → first model call, new thread, 200-file memory (the tool and the digest; ${carried} of ${runs} carried it)`,
      value: round(onTime.median),
      unit: "ms",
      stats: { p95: round(onTime.p95), "added over memory off": round(onTime.median - offTime.median), samples: runs, "load average (1 min) at the end": round(os.loadavg()[0] ?? 0) },
      baseline: { name: "the same runs with config.configurable.memory: false, interleaved", value: round(offTime.median), unit: "ms" },
      target: "p50 <= 10 ms",
      pass: onTime.median <= 10,
    });
    return results;
  } finally {
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const benchmark: Benchmark = { title: "Memory: the digest, the memory tool, a run's start", issue: 30, run: measure };
export default benchmark;

// Sub-agents: what a `task` call costs over doing the same work inline. One agent server in this
// process with a bench-local model; two scripted turns, interleaved on their own threads:
// - inline: the lead calls `ls` on the workspace, then answers;
// - delegated: the lead calls `task` (general-purpose); the sub-agent calls the same `ls`, answers;
//   the lead answers with that.
// Each run is on a new thread, timed from POST /threads/:id/runs/wait to its answer (inject, no
// network), with the process's CPU time over the same span (the server runs in this process: on a
// shared, loaded machine CPU time moves less than wall time). The overhead is the delegated p50
// (p95) minus the inline p50 (p95): finding the agent, its prompt and surface, the sub-graph, its two
// model calls, the delegation record and the token line.
import fs from "node:fs";
import os from "node:os";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { buildAgentServer, type AgentServer } from "@thinktank/agent";
import { loadConfig } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { round, summarize, type Benchmark, type BenchContext, type Measurement } from "./harness.js";

const samples = 200;
const warmup = 20;
const subtask = "SUBTASK: list the workspace and say what is there";

/** Answers by the last human message: `inline` and the sub-task call `ls`, `delegate` calls `task`; after a tool result it answers. */
class ScriptedTurnModel extends BaseChatModel {
  calls = 0;
  _llmType(): string {
    return "bench-subagents";
  }
  override bindTools(): ScriptedTurnModel {
    return this;
  }
  async _generate(messages: { getType(): string; text: string }[]): Promise<ChatResult> {
    this.calls++;
    const lastHuman = messages.findLastIndex((message) => message.getType() === "human");
    const human = messages[lastHuman]?.text ?? "";
    const answered = messages.slice(lastHuman + 1).some((message) => message.getType() === "tool");
    const id = `call_${this.calls}`;
    let message: AIMessage;
    if (answered) message = new AIMessage(`done: ${messages.at(-1)?.text.slice(0, 40) ?? ""}`);
    else if (human.startsWith("delegate")) message = new AIMessage({ content: "", tool_calls: [{ id, name: "task", args: { subagent_type: "general-purpose", description: "list the workspace", prompt: subtask }, type: "tool_call" }] });
    else message = new AIMessage({ content: "", tool_calls: [{ id, name: "ls", args: { path: "/mnt/user-data/workspace" }, type: "tool_call" }] });
    return { generations: [{ text: message.text, message }] };
  }
}

interface Agent {
  readonly server: AgentServer;
  readonly model: ScriptedTurnModel;
  cleanup(): void;
}

async function startAgent(): Promise<Agent> {
  const project = makeTempDir("tt-bench-subagents-");
  fs.chmodSync(project.dir, 0o755);
  writeTree(project.dir, {
    "config.yaml": "data_dir: data\nlog:\n  level: silent\nsandbox:\n  warm_pool_size: 0\n",
    "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }),
    "skills/public/.keep": "",
    "skills/custom/.keep": "",
  });
  const model = new ScriptedTurnModel({});
  const config = loadConfig({ cwd: project.dir, env: { PATH: process.env.PATH ?? "" } });
  const server = await buildAgentServer(config, { logger: false, prepare: { createModel: () => model } });
  return { server, model, cleanup: project.cleanup };
}

/** One run on a new thread; answers its wall and CPU milliseconds and checks the answer is the one the turn makes. */
async function turn(agent: Agent, kind: "inline" | "delegate"): Promise<{ wall: number; cpu: number }> {
  const threadId = ((await agent.server.app.inject({ method: "POST", url: "/threads", payload: {} })).json() as { thread_id: string }).thread_id;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const response = await agent.server.app.inject({ method: "POST", url: `/threads/${threadId}/runs/wait`, payload: { assistant_id: "lead_agent", input: { messages: [{ type: "human", content: kind }] } } });
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpuBefore);
  const values = response.json() as { messages?: { type: string; content: unknown }[]; delegations?: { status: string }[] };
  const messages = values.messages ?? [];
  const last = messages.at(-1);
  const toolResult = messages.findLast((message) => message.type === "tool");
  const ok = response.statusCode === 200 && last?.type === "ai" && String(last.content).startsWith("done") && (kind === "inline" || (String(toolResult?.content).startsWith("done") && values.delegations?.at(-1)?.status === "ok"));
  if (!ok) throw new Error(`the ${kind} turn did not run as scripted: ${response.body.slice(0, 500)}`);
  return { wall, cpu: (used.user + used.system) / 1000 };
}

async function measure(context: BenchContext): Promise<Measurement[]> {
  const agent = await startAgent();
  try {
    const load = () => os.loadavg()[0]?.toFixed(2) ?? "?";
    const loadBefore = load();
    const inline = { wall: [] as number[], cpu: [] as number[] };
    const delegated = { wall: [] as number[], cpu: [] as number[] };
    for (let i = 0; i < samples + warmup; i++) {
      // Alternate which goes first, so neither always runs right after the other's garbage.
      const order = i % 2 === 0 ? (["inline", "delegate"] as const) : (["delegate", "inline"] as const);
      for (const kind of order) {
        const { wall, cpu } = await turn(agent, kind);
        if (i < warmup) continue;
        const into = kind === "inline" ? inline : delegated;
        into.wall.push(wall);
        into.cpu.push(cpu);
      }
    }
    const a = summarize(inline.wall);
    const b = summarize(delegated.wall);
    const aCpu = summarize(inline.cpu);
    const bCpu = summarize(delegated.cpu);
    const loads = `load ${loadBefore} → ${load()}`;
    context.log(`inline p50 ${round(a.median)} ms (p95 ${round(a.p95)}, CPU ${round(aCpu.median)}); delegated p50 ${round(b.median)} ms (p95 ${round(b.p95)}, CPU ${round(bCpu.median)}); ${loads}`);
    return [
      {
        name: "a turn whose work runs in a sub-agent (task → general-purpose → ls → answer)",
        value: round(b.median),
        unit: "ms",
        stats: { p95: round(b.p95), min: round(b.min), "CPU p50": round(bCpu.median), "inline CPU p50": round(aCpu.median), samples: b.samples, "model calls": 4 },
        baseline: { name: "the same turn inline (ls → answer)", value: round(a.median), unit: "ms" },
      },
      {
        name: "overhead of the task call, p50 (delegated − inline)",
        value: round(b.median - a.median),
        unit: "ms",
        stats: { "p95 overhead": round(b.p95 - a.p95), "CPU p50 overhead": round(bCpu.median - aCpu.median), "inline p95": round(a.p95), "delegated p95": round(b.p95), "load (1 min)": loads.slice(5) },
        baseline: { name: "the inline turn", value: round(a.median), unit: "ms" },
      },
    ];
  } finally {
    await agent.server.close();
    agent.cleanup();
  }
}

const benchmark: Benchmark = {
  title: "Sub-agents: a task call against the same turn inline",
  issue: 27,
  run: measure,
};

export default benchmark;

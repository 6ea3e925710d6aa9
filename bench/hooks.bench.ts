// Plugin hooks: what one PreToolUse command hook costs per tool call. The agent server in this
// process (a bench-local model that calls bash once, then answers), one project with a plugin whose
// PreToolUse hook on Bash reads its input and exits 0, one without; the tool call is timed from the
// model's tool-calling answer to its next call (hook + bash + the graph step), the two projects'
// runs interleaved, per sandbox backend.
import fs from "node:fs";
import path from "node:path";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { buildAgentServer, type AgentServer } from "@thinktank/agent";
import { loadConfig } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { round, summarize, type Benchmark, type BenchContext, type Measurement } from "./harness.js";

const samples = 60;
const warmup = 8;
/** Untimed pause between runs, as the model's think time would be: the warm pool refills (as in sandbox.bench.ts). */
const thinkMs = 250;

/** Calls bash once per run, then answers; records when the tool call left and when its result came back. */
class ToolCallingModel extends BaseChatModel {
  calledBashAt: number | undefined;
  resultAt: number | undefined;
  lastResult = "";
  _llmType(): string {
    return "bench-tool-calling";
  }
  override bindTools(): ToolCallingModel {
    return this;
  }
  async _generate(messages: { getType(): string; text: string }[]): Promise<ChatResult> {
    const last = messages.at(-1);
    if (last?.getType() === "tool") {
      this.resultAt = performance.now();
      this.lastResult = last.text;
      return { generations: [{ text: "done", message: new AIMessage("done") }] };
    }
    const message = new AIMessage({ content: "", tool_calls: [{ id: `call_${messages.length}`, name: "bash", args: { command: "echo 1" }, type: "tool_call" }] });
    this.calledBashAt = performance.now();
    return { generations: [{ text: "", message }] };
  }
}

interface Agent {
  readonly server: AgentServer;
  readonly model: ToolCallingModel;
  readonly threadId: string;
  readonly project: { dir: string; cleanup(): void };
}

async function startAgent(backend: "auto" | "deno", withHook: boolean): Promise<Agent> {
  const project = makeTempDir("tt-bench-hooks-");
  fs.chmodSync(project.dir, 0o755);
  const files: Record<string, string> = {
    "config.yaml": `data_dir: data\nlog:\n  level: silent\nsandbox:\n  backend: ${backend}\n  warm_pool_size: 2\n`,
    "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }),
    "skills/public/.keep": "",
    "skills/custom/.keep": "",
  };
  if (withHook) {
    files["plugins/installed/bench-guard/.claude-plugin/plugin.json"] = JSON.stringify({ name: "bench-guard" });
    files["plugins/installed/bench-guard/hooks/hooks.json"] = JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/hooks/pre.sh" }] }] } });
    files["plugins/installed/bench-guard/hooks/pre.sh"] = "#!/bin/bash\ncat > /dev/null\nexit 0\n";
  }
  writeTree(project.dir, files);
  if (withHook) fs.chmodSync(path.join(project.dir, "plugins/installed/bench-guard/hooks/pre.sh"), 0o755);
  const model = new ToolCallingModel({});
  const config = loadConfig({ cwd: project.dir, env: { PATH: process.env.PATH ?? "" } });
  const server = await buildAgentServer(config, { logger: false, prepare: { createModel: () => model } });
  // One thread for every run: its workspace (and so the warm pool's key) stays the same.
  const thread = (await server.app.inject({ method: "POST", url: "/threads", payload: {} })).json() as { thread_id: string };
  return { server, model, threadId: thread.thread_id, project };
}

/** One run; answers the tool call's milliseconds. */
async function toolCall(agent: Agent): Promise<number> {
  agent.model.calledBashAt = undefined;
  agent.model.resultAt = undefined;
  const response = await agent.server.app.inject({ method: "POST", url: `/threads/${agent.threadId}/runs/wait`, payload: { assistant_id: "lead_agent", input: { messages: [{ type: "human", content: "go" }] } } });
  const { calledBashAt, resultAt, lastResult } = agent.model;
  if (calledBashAt === undefined || resultAt === undefined || !lastResult.includes("stdout:\n1")) throw new Error(`the run did not call bash as expected: ${lastResult} ${response.body.slice(0, 300)}`);
  return resultAt - calledBashAt;
}

async function pair(context: BenchContext, backend: "auto" | "deno"): Promise<Measurement> {
  const [hooked, plain] = await Promise.all([startAgent(backend, true), startAgent(backend, false)]);
  try {
    const backendName = (await hooked.server.runtime.executor.describeBackend()).backend;
    const withHook: number[] = [];
    const without: number[] = [];
    for (let i = 0; i < samples + warmup; i++) {
      for (const [agent, values] of [[hooked, withHook], [plain, without]] as const) {
        await new Promise((resolve) => setTimeout(resolve, thinkMs));
        const ms = await toolCall(agent);
        if (i >= warmup) values.push(ms);
      }
    }
    const hook = summarize(withHook);
    const base = summarize(without);
    context.log(`${backendName}: bash call with one PreToolUse hook p50 ${round(hook.median)} ms (p95 ${round(hook.p95)}), without hooks p50 ${round(base.median)} ms (p95 ${round(base.p95)})`);
    return {
      name: `a bash tool call with one PreToolUse command hook (warm), ${backendName} backend`,
      value: round(hook.median),
      unit: "ms",
      stats: { p95: round(hook.p95), "hook cost p50": round(hook.median - base.median), "baseline p95": round(base.p95), samples: hook.samples },
      baseline: { name: "the same call without hooks", value: round(base.median), unit: "ms" },
    };
  } finally {
    await Promise.all([hooked.server.close(), plain.server.close()]);
    hooked.project.cleanup();
    plain.project.cleanup();
  }
}

const benchmark: Benchmark = {
  title: "Plugin hooks: one PreToolUse hook per tool call",
  issue: 24,
  async run(context): Promise<Measurement[]> {
    const auto = await pair(context, "auto");
    const measurements = [auto];
    // Where auto picked bubblewrap, the deno fallback too (its shell is just-bash in Deno).
    if (!auto.name.includes("deno")) measurements.push(await pair(context, "deno"));
    return measurements;
  },
};

export default benchmark;

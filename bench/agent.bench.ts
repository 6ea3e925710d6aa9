// Agent server: from a run request to the first model call (run record, snapshot, prompt, tool surface, graph).
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { buildAgentServer } from "@thinktank/agent";
import { loadConfig } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { round, summarize, type Benchmark, type Measurement } from "./harness.js";

/** A bench-local model: records when it is first called in a run, answers at once. */
class TimingModel extends BaseChatModel {
  onCall: (() => void) | undefined;
  _llmType(): string {
    return "timing";
  }
  override bindTools(): TimingModel {
    return this;
  }
  async _generate(): Promise<ChatResult> {
    this.onCall?.();
    return { generations: [{ text: "ok", message: new AIMessage("ok") }] };
  }
}

const benchmark: Benchmark = {
  title: "Agent server: run request to first model call",
  issue: 5,
  async run(context): Promise<Measurement[]> {
    const temp = makeTempDir("tt-bench-agent-");
    try {
      writeTree(temp.dir, { "config.yaml": "data_dir: data\nlog:\n  level: silent\n", "skills/public/a/SKILL.md": "---\nname: a\ndescription: a\n---\nbody\n" });
      const config = loadConfig({ cwd: temp.dir, env: {} });
      const model = new TimingModel({});
      const server = await buildAgentServer(config, { logger: false, prepare: { createModel: () => model } });
      const samples = 200;
      const toFirstCall: number[] = [];
      const plainRoute: number[] = [];
      for (let i = 0; i < samples + 20; i++) {
        const thread = (await server.app.inject({ method: "POST", url: "/threads", payload: {} })).json() as { thread_id: string };
        const called = new Promise<number>((resolve) => (model.onCall = () => resolve(performance.now())));
        const start = performance.now();
        const created = await server.app.inject({ method: "POST", url: `/threads/${thread.thread_id}/runs`, payload: { assistant_id: "lead_agent", input: { messages: [{ type: "human", content: `hi ${i}` }] } } });
        const firstCall = await called;
        const run = created.json() as { run_id: string };
        await server.app.inject({ method: "GET", url: `/threads/${thread.thread_id}/runs/${run.run_id}/join` });
        const routeStart = performance.now();
        await server.app.inject({ method: "GET", url: "/healthz" });
        const routeEnd = performance.now();
        if (i >= 20) {
          toFirstCall.push(firstCall - start);
          plainRoute.push(routeEnd - routeStart);
        }
      }
      await server.close();
      const summary = summarize(toFirstCall);
      const baseline = summarize(plainRoute);
      context.log(`first model call p50 ${round(summary.median)} ms, plain route p50 ${round(baseline.median, 3)} ms`);
      return [
        {
          name: "POST /threads/:id/runs → first model call (starter providers, SQLite)",
          value: round(summary.median),
          unit: "ms",
          stats: { p95: round(summary.p95), min: round(summary.min), samples: summary.samples },
          baseline: { name: "GET /healthz (inject)", value: round(baseline.median, 3), unit: "ms" },
          target: "p50 <= 10 ms (full target: 200 skills, 22 plugins, 3 MCP servers, once their providers are wired)",
          pass: summary.median <= 10,
        },
      ];
    } finally {
      temp.cleanup();
    }
  },
};

export default benchmark;

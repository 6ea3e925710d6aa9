// Agent server with users: from a run request to the first model call when 100 users each have
// their own enablement overlay and their own skill (the per-caller skills snapshot: the shared
// snapshot taken once, each user's view merged on top and cached), beside the single-operator
// path measured in the same run on the same server, interleaved.
import fs from "node:fs";
import os from "node:os";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { buildAgentServer, type AgentServer } from "@thinktank/agent";
import { loadConfig } from "@thinktank/core";
import { userSkillsFolder } from "@thinktank/skills";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { round, summarize, type Benchmark, type BenchContext, type Measurement } from "./harness.js";

const users = 100;
const sharedSkills = 50;
const rounds = 3;
const warmup = 20;

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

const skillText = (name: string, description: string): string => `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n# ${name}\n`;

/** POST /threads, POST /threads/:id/runs, join: the milliseconds from the run request to the model's first call. */
async function firstCall(server: AgentServer, model: TimingModel, headers: Record<string, string>, i: number): Promise<number> {
  const thread = (await server.app.inject({ method: "POST", url: "/threads", headers, payload: {} })).json() as { thread_id: string };
  let calledAt: number | undefined;
  model.onCall = () => (calledAt ??= performance.now());
  const start = performance.now();
  const created = await server.app.inject({ method: "POST", url: `/threads/${thread.thread_id}/runs`, headers, payload: { assistant_id: "lead_agent", input: { messages: [{ type: "human", content: `hi ${i}` }] } } });
  const run = created.json() as { run_id: string };
  const joined = await server.app.inject({ method: "GET", url: `/threads/${thread.thread_id}/runs/${run.run_id}/join`, headers });
  if (calledAt === undefined) throw new Error(`the run ended without calling the model: ${joined.body.slice(0, 500)}`);
  return calledAt - start;
}

async function measure(context: BenchContext): Promise<Measurement[]> {
  const temp = makeTempDir("tt-bench-users-");
  fs.chmodSync(temp.dir, 0o755);
  const files: Record<string, string> = {
    "config.yaml": "data_dir: data\nlog:\n  level: silent\ncode_execution:\n  mode: auto\nsandbox:\n  warm_pool_size: 0\n",
    "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }),
    "skills/public/a/SKILL.md": skillText("a", "a"),
  };
  for (let i = 0; i < sharedSkills; i++) files[`skills/custom/shared-${i}/SKILL.md`] = skillText(`shared-${i}`, `Handles request family ${i}: reads inputs and writes a short report.`);
  writeTree(temp.dir, files);
  let server: AgentServer | undefined;
  try {
    const config = loadConfig({ cwd: temp.dir, env: { PATH: process.env.PATH ?? "" } });
    const model = new TimingModel({});
    server = await buildAgentServer(config, { logger: false, prepare: { createModel: () => model } });
    // 100 users, each with a key, an overlay (one shared skill off, one the default leaves on) and a skill of their own.
    const keys: string[] = [];
    const overlays: Record<string, { skills: Record<string, { enabled: boolean }> }> = {};
    for (let i = 0; i < users; i++) {
      const { user, apiKey } = await server.identity.users.create({ name: `user-${i}`, role: "user" });
      keys.push(apiKey);
      overlays[user.id] = { skills: { [`custom:shared-${i % sharedSkills}`]: { enabled: false } } };
      writeTree(userSkillsFolder(config.skills.path, user.id), { [`own-${i}/SKILL.md`]: skillText(`own-${i}`, `User ${i}'s own way of writing status updates.`) });
    }
    await server.runtime.store.update((draft) => {
      draft.users = overlays;
    });
    const operator = {};
    const asUser = (i: number) => ({ "x-api-key": keys[i % users] as string });
    // The first run of each user builds their view (the shared snapshot is already warm).
    const firstOfUser: number[] = [];
    for (let i = 0; i < warmup; i++) await firstCall(server, model, operator, i);
    for (let i = 0; i < users; i++) firstOfUser.push(await firstCall(server, model, asUser(i), i));
    const view = await server.runtime.skillsFor(((await server.identity.users.list()).find((user) => user.name === "user-7") as { id: string }).id);
    const ownVisible = view.skills.some((skill) => skill.identity === "user:own-7") && !view.skills.some((skill) => skill.identity === "user:own-8");
    if (!ownVisible) throw new Error("a user's view does not hold exactly their own skill");
    // Interleaved: operator, user, operator, user, ... over every user `rounds` times.
    const operatorTimes: number[] = [];
    const userTimes: number[] = [];
    for (let i = 0; i < users * rounds; i++) {
      operatorTimes.push(await firstCall(server, model, operator, i));
      userTimes.push(await firstCall(server, model, asUser(i), i));
    }
    // The snapshot alone (settings, the owner's skills view, plugins, commands and listing), per request.
    const ids = (await server.identity.users.list()).map((record) => record.id);
    const snapshotUser: number[] = [];
    const snapshotOperator: number[] = [];
    for (let i = 0; i < users * 10; i++) {
      let start = performance.now();
      await server.runtime.snapshot("admin");
      snapshotOperator.push(performance.now() - start);
      start = performance.now();
      await server.runtime.snapshot(ids[i % ids.length]);
      snapshotUser.push(performance.now() - start);
    }
    const snapUser = summarize(snapshotUser);
    const snapOperator = summarize(snapshotOperator);
    const user = summarize(userTimes);
    const single = summarize(operatorTimes);
    const first = summarize(firstOfUser);
    context.log(`users: first model call p50 ${round(user.median)} ms (p95 ${round(user.p95)}), operator p50 ${round(single.median)} ms; a user's first run p50 ${round(first.median)} ms`);
    return [
      {
        name: `POST /threads/:id/runs → first model call, ${users} users (each an overlay and an own skill; ${sharedSkills + 1} shared skills)`,
        value: round(user.median),
        unit: "ms",
        stats: { p95: round(user.p95), min: round(user.min), samples: user.samples, "a user's first run (view built) p50": round(first.median), "first run p95": round(first.p95), "load average (1 min) at the end": round(os.loadavg()[0] ?? 0, 1) },
        baseline: { name: "the operator (no overlay), interleaved", value: round(single.median), unit: "ms" },
        target: "p50 <= 10 ms",
        pass: user.median <= 10,
      },
      {
        name: `the run's snapshot (settings, skills view, plugins, commands, listing), ${users} users round-robin`,
        value: round(snapUser.median, 3),
        unit: "ms",
        stats: { p95: round(snapUser.p95, 3), samples: snapUser.samples },
        baseline: { name: "the operator's snapshot, interleaved", value: round(snapOperator.median, 3), unit: "ms" },
      },
    ];
  } finally {
    await server?.close();
    temp.cleanup();
  }
}

const benchmark: Benchmark = {
  title: "Agent server with users: run request to first model call, per-user skills",
  issue: 25,
  run: measure,
};

export default benchmark;

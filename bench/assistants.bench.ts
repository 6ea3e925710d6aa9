// Assistants (issue 28): a run request to its first model call with an assistant that restricts
// skills to 10 of 450 (the corpus project the skill listing's bench grows), against lead_agent's on
// the same server, interleaved: the request the model gets (system prompt, tool definitions and the
// first message with what it is offered, in o200k tokens and bytes) and the time from POST
// /threads/:id/runs to the first model call. The first messages are the skills eval's dev requests.
// Then the same two requests with skills.listing: full, through inspect prompt.
import os from "node:os";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { buildAgentServer, inspectPrompt, type AgentServer } from "@thinktank/agent";
import { loadConfig } from "@thinktank/core";
import { countTokens } from "@thinktank/mcp";
import { devGoldFile, readSkillGold } from "../packages/skills/eval/skill-gold.js";
import { makeSkillCorpusProject } from "../apps/agent/test/support/skill-corpus-project.js";
import { round, summarize, type Benchmark, type BenchContext, type Measurement } from "./harness.js";

const skills = 450;
const allowed = 10;
const requests = 80;

/** The first model call of a run as the model got it. */
interface FirstCall {
  readonly at: number;
  readonly tokens: number;
  readonly bytes: number;
  readonly system: number;
  readonly tools: number;
  readonly message: number;
}

/** A bench-local model: measures what its first call in a run is sent, answers at once. */
class MeasuringModel extends BaseChatModel {
  onCall: ((call: FirstCall) => void) | undefined;
  constructor(private readonly bound: readonly StructuredToolInterface[] = []) {
    super({});
  }
  _llmType(): string {
    return "measuring";
  }
  override bindTools(tools: unknown[]): MeasuringModel {
    const next = new MeasuringModel(tools as StructuredToolInterface[]);
    next.onCall = this.onCall;
    return next;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const at = performance.now();
    if (this.onCall) {
      const system = messages[0]?.text ?? "";
      const message = messages.slice(1).map((each) => each.text).join("\n");
      const tools = JSON.stringify(this.bound.map((tool) => convertToOpenAITool(tool)));
      const [systemTokens, toolTokens, messageTokens] = [countTokens(system), countTokens(tools), countTokens(message)];
      this.onCall({ at, system: systemTokens, tools: toolTokens, message: messageTokens, tokens: systemTokens + toolTokens + messageTokens, bytes: Buffer.byteLength(system) + Buffer.byteLength(tools) + Buffer.byteLength(message) });
    }
    return { generations: [{ text: "ok", message: new AIMessage("ok") }] };
  }
}

/** POST /threads, POST /threads/:id/runs, join: what the first model call got, and when. */
async function firstCall(server: AgentServer, model: MeasuringModel, assistantId: string, content: string): Promise<FirstCall & { ms: number }> {
  const thread = (await server.app.inject({ method: "POST", url: "/threads", payload: {} })).json() as { thread_id: string };
  let first: FirstCall | undefined;
  model.onCall = (call) => (first ??= call);
  const start = performance.now();
  const created = await server.app.inject({ method: "POST", url: `/threads/${thread.thread_id}/runs`, payload: { assistant_id: assistantId, input: { messages: [{ type: "human", content }] } } });
  const run = created.json() as { run_id: string };
  const joined = await server.app.inject({ method: "GET", url: `/threads/${thread.thread_id}/runs/${run.run_id}/join` });
  model.onCall = undefined;
  if (!first) throw new Error(`the run ended without calling the model: ${created.body.slice(0, 300)} ${joined.body.slice(0, 300)}`);
  return { ...first, ms: first.at - start };
}

async function measure(context: BenchContext): Promise<Measurement[]> {
  if (!context.corpus) {
    context.log("corpus not found: the assistants benchmark needs ../shared/corpus (450 skills)");
    return [];
  }
  const gold = readSkillGold(devGoldFile);
  const project = await makeSkillCorpusProject(context.corpus, skills, "code_execution:\n  mode: code\n");
  let server: AgentServer | undefined;
  try {
    const config = loadConfig({ cwd: project.dir, env: { PATH: process.env.PATH ?? "" } });
    const model = new MeasuringModel();
    server = await buildAgentServer(config, { logger: false, prepare: { createModel: () => model } });
    const snapshot = await server.runtime.snapshot();
    const enabled = new Set(snapshot.skills.skills.filter((skill) => skill.enabled).map((skill) => skill.identity));
    // The ten skills the eval's requests ask for most: an assistant for the work people bring.
    const counts = new Map<string, number>();
    for (const pair of gold) for (const identity of pair.expected) if (enabled.has(identity)) counts.set(identity, (counts.get(identity) ?? 0) + 1);
    const chosen = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, allowed).map(([identity]) => identity);
    const created = await server.app.inject({ method: "POST", url: "/assistants", payload: { graph_id: "lead_agent", name: "ten skills", config: { configurable: { skills: chosen } } } });
    if (created.statusCode !== 200) throw new Error(`creating the assistant failed: ${created.body}`);
    const assistantId = (created.json() as { assistant_id: string }).assistant_id;
    const messages = gold.slice(0, requests).map((pair) => pair.query);
    // Warm both paths (the snapshot, the restricted view, the listing), then interleave.
    for (const content of messages.slice(0, 5)) {
      await firstCall(server, model, "lead_agent", content);
      await firstCall(server, model, assistantId, content);
    }
    const lead: (FirstCall & { ms: number })[] = [];
    const narrow: (FirstCall & { ms: number })[] = [];
    for (const content of messages) {
      lead.push(await firstCall(server, model, "lead_agent", content));
      narrow.push(await firstCall(server, model, assistantId, content));
    }
    const median = (calls: readonly (FirstCall & { ms: number })[], field: keyof FirstCall | "ms") => summarize(calls.map((call) => call[field])).median;
    const listingOf = async (assistant?: string) => {
      const request = { ownerId: "admin", ...(assistant ? { assistant: { assistant_id: assistant, version: 1, settings: {}, skills: (identity: string) => chosen.includes(identity), skillsKey: JSON.stringify(chosen), agentsKey: "" } } : {}) };
      return (await server!.runtime.snapshot(request.ownerId, request.assistant)).listing.mode;
    };
    const [leadListing, narrowListing] = [await listingOf(), await listingOf(assistantId)];
    // The same two requests under skills.listing: full, as `thinktank inspect prompt [--assistant ID]` shows them.
    const fullLead = await inspectPrompt(config, { listing: "full", message: messages[0] });
    const fullNarrow = await inspectPrompt(config, { listing: "full", assistant: assistantId, message: messages[0] });
    const leadTime = summarize(lead.map((call) => call.ms));
    const narrowTime = summarize(narrow.map((call) => call.ms));
    context.log(`assistants: first call ${median(narrow, "tokens")} tokens (lead_agent ${median(lead, "tokens")}); ${round(narrowTime.median)} ms (lead_agent ${round(leadTime.median)} ms); listing ${narrowListing} vs ${leadListing}`);
    return [
      {
        name: `first model call's request, an assistant with ${allowed} of ${snapshot.skills.skills.length} skills (${narrowListing} listing), ${requests} eval requests as first messages, code mode`,
        value: median(narrow, "tokens"),
        unit: "tokens",
        stats: {
          "system prompt": median(narrow, "system"),
          tools: median(narrow, "tools"),
          "first message with its offers": median(narrow, "message"),
          bytes: median(narrow, "bytes"),
          "lead_agent system prompt": median(lead, "system"),
          "lead_agent tools": median(lead, "tools"),
          "lead_agent message": median(lead, "message"),
          "lead_agent bytes": median(lead, "bytes"),
        },
        baseline: { name: `lead_agent on the same server and messages (${leadListing} listing), interleaved`, value: median(lead, "tokens"), unit: "tokens" },
        target: "smaller than lead_agent's",
        pass: median(narrow, "tokens") < median(lead, "tokens"),
      },
      {
        name: `the same with skills.listing: full (every skill in the system prompt), one request, inspect prompt --assistant`,
        value: fullNarrow.tokens.total,
        unit: "tokens",
        stats: { "system prompt": fullNarrow.tokens.systemPrompt, tools: fullNarrow.tokens.tools, "lead_agent system prompt": fullLead.tokens.systemPrompt, "lead_agent tools": fullLead.tokens.tools },
        baseline: { name: "lead_agent, full listing", value: fullLead.tokens.total, unit: "tokens" },
        target: "smaller than lead_agent's",
        pass: fullNarrow.tokens.total < fullLead.tokens.total,
      },
      {
        name: `POST /threads/:id/runs → first model call, the same assistant`,
        value: round(narrowTime.median),
        unit: "ms",
        stats: { p95: round(narrowTime.p95), samples: narrowTime.samples, "lead_agent p95": round(leadTime.p95), "load average (1 min) at the end": round(os.loadavg()[0] ?? 0, 1) },
        baseline: { name: "lead_agent, interleaved", value: round(leadTime.median), unit: "ms" },
      },
    ];
  } finally {
    await server?.close();
    project.cleanup();
  }
}

const benchmark: Benchmark = {
  title: "Assistants: a run's request with an assistant that restricts skills to 10 of 450",
  issue: 28,
  run: measure,
};

export default benchmark;

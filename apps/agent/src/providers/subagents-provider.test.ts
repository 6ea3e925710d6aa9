import { loadConfig, type Config } from "@thinktank/core";
import { builtinAgents, type AgentsSnapshot } from "@thinktank/subagents";
import { makeTempDir } from "@thinktank/testing";
import { afterAll, describe, expect, it } from "vitest";
import type { RequestInfo } from "../request/request-context.js";
import type { AgentRuntime } from "../runtime/agent-runtime.js";
import { createSubagentsProvider } from "./subagents-provider.js";

const temp = makeTempDir("tt-subagents-provider-");
afterAll(() => temp.cleanup());
const base = loadConfig({ cwd: temp.dir, env: {} });
const info = { config: base, threadId: "t", runId: "r", ownerId: "admin", now: new Date(), folders: { workspace: temp.dir, uploads: temp.dir, outputs: temp.dir } } satisfies RequestInfo;

/** Only what the provider reads of the runtime: its config and the run's agents. */
const runtimeWith = (agents: AgentsSnapshot, subagents: Partial<Config["subagents"]> = {}) =>
  ({ config: { ...base, subagents: { ...base.subagents, ...subagents } }, snapshotFor: async () => ({ agents }) }) as unknown as AgentRuntime;
const names = async (runtime: AgentRuntime) => ((await createSubagentsProvider(runtime).contribute(info)).tools ?? []).map((tool) => tool.name);

describe("the sub-agents provider", () => {
  it("offers task when sub-agents are enabled and the run has an enabled agent; not otherwise", async () => {
    const agents: AgentsSnapshot = { agents: builtinAgents, problems: [] };
    expect(await names(runtimeWith(agents))).toEqual(["task"]);
    expect(await names(runtimeWith(agents, { enabled: false }))).toEqual([]);
    const disabled: AgentsSnapshot = { agents: builtinAgents.map((agent) => ({ ...agent, enabled: false })), problems: [] };
    expect(await names(runtimeWith(disabled))).toEqual([]);
  });
});

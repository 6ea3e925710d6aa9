// The agent's per-request agents snapshot per run owner: built-in, enabled plugins', custom and the
// owner's own user: agents with their overlay, reached by providers through runtime.snapshotFor(request).agents.
import fs from "node:fs";
import path from "node:path";
import { loadConfig, operatorId, type Config } from "@thinktank/core";
import { threadFolders } from "@thinktank/files";
import { findAgent, userAgentsFolder } from "@thinktank/subagents";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RequestInfo } from "../src/request/request-context.js";
import { AgentRuntime } from "../src/runtime/agent-runtime.js";

const agent = (name: string, description: string) => `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\nYou are ${name}.\n`;

let temp: { dir: string; cleanup: () => void };
let config: Config;
let runtime: AgentRuntime;

beforeAll(async () => {
  temp = makeTempDir("tt-agent-agents-users-");
  fs.chmodSync(temp.dir, 0o755);
  writeTree(temp.dir, {
    "config.yaml": "data_dir: data\nlog:\n  level: silent\nsandbox:\n  warm_pool_size: 0\ncode_execution:\n  mode: direct\n",
    "extensions_config.json": JSON.stringify({
      mcpServers: {},
      skills: {},
      plugins: { sales: { enabled: true }, archive: { enabled: false } },
      tools: {},
      agents: { "custom:auditor": { enabled: false } },
      users: { usr_alice: { agents: { "custom:auditor": { enabled: true } } } },
    }),
    "agents/custom/auditor.md": agent("auditor", "Audits expense reports."),
    "plugins/installed/sales/.claude-plugin/plugin.json": JSON.stringify({ name: "sales" }),
    "plugins/installed/sales/agents/call-prep.md": agent("call-prep", "Prepares a sales call."),
    "plugins/installed/archive/.claude-plugin/plugin.json": JSON.stringify({ name: "archive" }),
    "plugins/installed/archive/agents/old.md": agent("old", "An agent of a disabled plugin."),
  });
  const agentsRoot = path.join(temp.dir, "agents");
  writeTree(userAgentsFolder(agentsRoot, "usr_alice"), { "minutes.md": agent("minutes", "Turns minutes into action items.") });
  config = loadConfig({ cwd: temp.dir, env: { PATH: process.env.PATH ?? "" } });
  runtime = new AgentRuntime(config, { tools: false });
  await runtime.start();
}, 60_000);

afterAll(async () => {
  await runtime?.close();
  temp?.cleanup();
});

function request(ownerId: string): RequestInfo {
  return { config, threadId: `t-${ownerId}`, runId: `r-${ownerId}`, ownerId, now: new Date("2026-05-04T09:30:00Z"), folders: threadFolders(config, `t-${ownerId}`) };
}

describe("the run owner's agents snapshot", () => {
  it("reaches providers through snapshotFor(request).agents: the owner's overlay and own agents, never another user's", async () => {
    const alice = (await runtime.snapshotFor(request("usr_alice"))).agents;
    const bob = (await runtime.snapshotFor(request("usr_bob"))).agents;
    const operator = (await runtime.snapshotFor(request(operatorId))).agents;
    expect(alice.agents.map((a) => a.identity)).toEqual(["builtin:general-purpose", "plugin:sales:call-prep", "custom:auditor", "user:minutes"]);
    expect(findAgent(alice, "auditor").identity).toBe("custom:auditor");
    expect(findAgent(alice, "minutes").file).toBe(path.join(userAgentsFolder(path.join(temp.dir, "agents"), "usr_alice"), "minutes.md"));
    expect(() => findAgent(bob, "minutes")).toThrow(/no agent named "minutes"/);
    expect(() => findAgent(bob, "auditor")).toThrow(/disabled/);
    // A disabled plugin's agents are not in the agent server's snapshot at all.
    expect(operator.agents.some((a) => a.plugin === "archive")).toBe(false);
    expect(bob).toBe(operator);
    expect((await runtime.snapshotFor(request("usr_alice"))).agents).toBe(alice);
    expect(await runtime.agentsFor("usr_alice")).toBe(alice);
  });
});

// Issue 29, "Server status where users look": GET /api/mcp/servers shows every server's live state
// from the agent's MCP manager, with real processes: an agent server and a gateway on one project
// folder, a stdio server that works, one that fails to start (printing a token on stderr), a remote
// server that needs OAuth sign-in (a real authorization server), a plugin's stdio server under
// plugins.host_programs: deny, and a user beside the operator. Then the agent dies, and is stopped:
// the states are `unknown` with the reason, answered at once.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startOAuthTestServer, testServerEntry } from "@thinktank/mcp/testing";
import type { OAuthTestServer } from "@thinktank/mcp/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess } from "./support/agent-process.js";
import { gatewayRequest, makeProjectFixture, startGatewayProcess, type GatewayProcess, type ProjectFixture } from "./support/project-fixture.js";

const leakedToken = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
/** A server that cannot start, and prints the token it read from a file on its way out (neither its entry nor its env holds it). */
const failing = (tokenFile: string) => ({
  command: process.execPath,
  args: ["-e", 'process.stderr.write("cannot start: bad credentials " + require("node:fs").readFileSync(process.argv[1], "utf8") + "\\n"); process.exit(3)', tokenFile],
});

let oauth: OAuthTestServer;
let project: ProjectFixture;
let gateway: GatewayProcess;
let agent: AgentProcess | undefined;
const tokenFile = path.join(os.tmpdir(), `tt-status-token-${process.pid}`);
/** Before the processes started. */
let started: string;

beforeAll(async () => {
  oauth = await startOAuthTestServer();
  fs.writeFileSync(tokenFile, leakedToken);
  project = await makeProjectFixture({
    script: "rules: []\n",
    config: ["plugins:", "  host_programs: deny", "mcp:", "  retries: 0"],
    extensions: { mcpServers: { works: testServerEntry(), broken: failing(tokenFile), crm: { type: "http", url: oauth.mcpUrl } } },
    files: {
      "plugins/installed/tap/.claude-plugin/plugin.json": JSON.stringify({ name: "tap" }),
      "plugins/installed/tap/.mcp.json": JSON.stringify({ mcpServers: { probe: testServerEntry() } }),
    },
  });
  started = new Date().toISOString();
  [gateway, agent] = await Promise.all([startGatewayProcess(project), startAgentProcess(project.env)]);
}, 300_000);

afterAll(async () => {
  await Promise.all([agent?.stop(), gateway?.stop()]);
  await oauth?.close();
  project?.cleanup();
  fs.rmSync(tokenFile, { force: true });
});

interface Listed {
  name: string;
  status: string;
  reason?: string;
  tool_count?: number;
  protocol_version?: string;
  last_error_at?: string;
  last_error?: string;
  status_at?: string;
  auth?: { signed_in: boolean };
}

async function servers(key?: string): Promise<Record<string, Listed>> {
  const response = await fetch(`${gateway.url}/api/mcp/servers`, key ? { headers: { "x-api-key": key } } : {});
  expect(response.status).toBe(200);
  const text = await response.text();
  expect(text).not.toContain(leakedToken);
  return Object.fromEntries((JSON.parse(text) as { servers: Listed[] }).servers.map((server) => [server.name, server]));
}

describe("MCP server states in GET /api/mcp/servers", { timeout: 240_000 }, () => {
  it("shows each server's live state to each caller, and unknown at once when the agent dies or stops", async () => {
    await expect.poll(async () => Object.values(await servers()).map((server) => `${server.name}=${server.status}`).sort(), { timeout: 60_000, interval: 250 }).toEqual([
      "broken=unavailable",
      "crm=needs_auth",
      "tap:probe=denied",
      "works=connected",
    ]);
    const operator = await servers();
    expect(operator.works).toMatchObject({ tool_count: expect.any(Number), protocol_version: "2025-11-25", status_at: expect.any(String) });
    expect(operator.works?.tool_count).toBeGreaterThan(0);
    expect(operator.broken).toMatchObject({ reason: expect.stringContaining("cannot start: bad credentials [redacted]"), last_error: expect.stringContaining("cannot start") });
    expect(operator.broken?.last_error_at && operator.broken.last_error_at > started).toBe(true);
    expect(operator.crm).toMatchObject({ reason: expect.stringContaining("needs sign-in"), last_error_at: expect.any(String) });
    expect(operator["tap:probe"]).toMatchObject({ reason: expect.stringContaining("plugins.host_programs is 'deny'") });
    // One server alone answers the same.
    expect((await gatewayRequest(gateway, "GET", "/api/mcp/servers/works")).body).toMatchObject({ status: "connected", protocol_version: "2025-11-25" });

    // The operator signs in: the agent's session connects; a user who has not signed in still needs to (never the operator's state).
    const user = await gatewayRequest(gateway, "POST", "/api/users", { name: "ada", role: "user" });
    const userKey = String(user.body.api_key);
    const signIn = await gatewayRequest(gateway, "POST", "/api/mcp/servers/crm/auth", {});
    expect((await fetch(await oauth.approve(String(signIn.body.authorization_url)))).status).toBe(200);
    await expect.poll(async () => (await servers()).crm?.status, { timeout: 30_000, interval: 250 }).toBe("connected");
    expect((await servers()).crm).toMatchObject({ tool_count: expect.any(Number), auth: { signed_in: true } });
    const theirs = await servers(userKey);
    expect(theirs.crm).toMatchObject({ status: "needs_auth", auth: { signed_in: false } });
    expect(theirs.crm?.tool_count).toBeUndefined();
    // The shared stdio servers are the same for everyone.
    expect(theirs.works).toMatchObject({ status: "connected" });

    // The agent dies (no chance to say so): unknown at once, saying so, and the answer does not wait.
    const running = agent as AgentProcess;
    running.child.kill("SIGKILL");
    await new Promise((resolve) => running.child.once("exit", resolve));
    const timed = performance.now();
    const dead = await servers();
    const tookMs = performance.now() - timed;
    expect(dead.works).toMatchObject({ status: "unknown", reason: expect.stringMatching(/^the agent server agent-\d+ \(pid \d+ on .*\) is not running \(it ended without stopping/) });
    // What the configuration or the token store knows without the agent still shows.
    expect(dead["tap:probe"]?.status).toBe("denied");
    expect(tookMs).toBeLessThan(2000);

    // A new agent reports; stopped on purpose, it says when.
    agent = await startAgentProcess(project.env);
    await expect.poll(async () => (await servers()).broken?.status, { timeout: 60_000, interval: 250 }).toBe("unavailable");
    // A server whose tool list the previous agent cached for this entry waits for its first use to connect.
    expect((await servers()).works).toMatchObject({ status: "idle", tools_from: "cache", tool_count: expect.any(Number) });
    await agent.stop();
    const stopped = await servers();
    expect(stopped.works).toMatchObject({ status: "unknown", reason: expect.stringMatching(/stopped at .*; no agent server runs now/) });
    expect(stopped.broken).toMatchObject({ status: "unknown" });
    // The record is the agent's own file in the data folder, which no host program sees.
    expect(fs.readdirSync(path.join(project.dir, "data", "mcp-status")).filter((name) => name.endsWith(".json"))).toHaveLength(1);
  });
});

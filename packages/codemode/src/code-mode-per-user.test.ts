import fs from "node:fs";
import path from "node:path";
import { loadConfig, type Config } from "@thinktank/core";
import { McpManager, OAuthSignIn, OAuthTokenStore, type McpServerEntry } from "@thinktank/mcp";
import { startOAuthTestServer, type OAuthTestServer } from "@thinktank/mcp/testing";
import { createSandboxExecutor, type SandboxExecutor } from "@thinktank/sandbox";
import { makeTempDir } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodeMode } from "./code-mode.js";
import { McpToolInvoker } from "./invoker/mcp-tool-invoker.js";
import { chooseToolSurface } from "./surface/choose-tool-surface.js";

// Code mode and direct mode as a run's owner: two users signed in to one OAuth-protected server
// (the server answers whoami with the account that approved the token), and a user's own server.
describe("code mode per user", () => {
  let temp: { dir: string; cleanup: () => void };
  let server: OAuthTestServer;
  let manager: McpManager;
  let executor: SandboxExecutor;
  let codeMode: CodeMode;
  const alice = "usr_a11ce";
  const bob = "usr_b0b";

  beforeAll(async () => {
    temp = makeTempDir("tt-codemode-users-");
    fs.chmodSync(temp.dir, 0o755);
    server = await startOAuthTestServer();
    const loaded = loadConfig({ cwd: temp.dir, env: {} });
    const config: Config = {
      ...loaded,
      env: { PATH: process.env.PATH },
      mcp: { ...loaded.mcp, connect_timeout_ms: 10_000, call_timeout_ms: 10_000, retries: 1, retry_base_delay_ms: 50 },
      code_execution: { ...loaded.code_execution, timeout_seconds: 60 },
      sandbox: { ...loaded.sandbox, warm_pool_size: 0 },
    };
    const store = new OAuthTokenStore({ dir: path.join(temp.dir, "oauth") });
    const entry: McpServerEntry = { type: "http", url: server.mcpUrl };
    for (const [user, account] of [[alice, "alice@crm"], [bob, "bob@crm"]] as const) {
      const flow = new OAuthSignIn({ store, env: {}, clientName: "Thinktank test", pendingTtlMs: 60_000, timeoutMs: 5000 });
      const started = await flow.start("crm", entry, { redirectUrl: "http://127.0.0.1:9/callback", user });
      const callback = new URL(await server.approve(started.authorizationUrl, { account }));
      await flow.finish(Object.fromEntries(callback.searchParams), async () => entry);
    }
    const notes = new OAuthSignIn({ store, env: {}, clientName: "Thinktank test", pendingTtlMs: 60_000, timeoutMs: 5000 });
    const started = await notes.start("~notes", entry, { redirectUrl: "http://127.0.0.1:9/callback", user: alice });
    await notes.finish(Object.fromEntries(new URL(await server.approve(started.authorizationUrl, { account: "alice@notes" })).searchParams), async () => entry);
    manager = new McpManager({ mcp: config.mcp, env: config.env, oauthStore: store }, { crm: entry });
    manager.syncUser(alice, { "~notes": entry });
    executor = createSandboxExecutor({ config, searchPath: process.env.PATH, runtimeDir: path.join(temp.dir, "sandbox-runtime") });
    codeMode = new CodeMode({ config, executor, invokers: [new McpToolInvoker(manager)], runtimeDir: path.join(temp.dir, "bridges") });
  }, 60_000);
  afterAll(async () => {
    await codeMode?.close();
    await manager?.close();
    await executor?.close();
    await server?.close();
    temp?.cleanup();
  });

  it("direct mode offers each user the tools of their own session, and calls carry their token", async () => {
    for (const [user, account] of [[alice, "alice@crm"], [bob, "bob@crm"]] as const) {
      const surface = await chooseToolSurface({ codeMode, manager, mode: "direct", autoThresholdTokens: 4000, place: { threadId: "t", userId: user } });
      const whoami = surface.tools.find((tool) => tool.name === "crm__whoami");
      expect(JSON.stringify(await whoami?.invoke({}))).toContain(account);
      expect(surface.tools.some((tool) => tool.name.includes("notes"))).toBe(user === alice);
    }
    // The operator never signed in: their surface offers no crm tools and says why.
    const operator = await chooseToolSurface({ codeMode, manager, mode: "direct", autoThresholdTokens: 4000, place: { threadId: "t" } });
    expect(operator.tools).toEqual([]);
    expect(operator.unavailable).toEqual([{ server: "crm", reason: expect.stringContaining("needs sign-in") }]);
  });

  it("list_servers and execute_code run as the place's user: their sign-ins, their own servers", async () => {
    expect(codeMode.listServers(alice).map((summary) => [summary.name, summary.status])).toEqual([
      ["crm", "connected"],
      ["~notes", expect.any(String)],
    ]);
    expect(codeMode.listServers(bob).map((summary) => summary.name)).toEqual(["crm"]);
    expect(codeMode.listServers().map((summary) => summary.name)).toEqual(["crm"]);
    const program = [
      'import { callMCPTool } from "/mnt/code-api/runtime/call-mcp-tool.ts";',
      'const crm = await callMCPTool("crm", "whoami", {}) as { account: string };',
      'let notes = "none";',
      'try { notes = ((await callMCPTool("~notes", "whoami", {})) as { account: string }).account; } catch (error) { notes = (error as { code: string }).code; }',
      "console.log(JSON.stringify({ crm: crm.account, notes }));",
    ].join("\n");
    const asAlice = await codeMode.executeCode({ code: program }, { threadId: "alice", userId: alice });
    expect(asAlice.error).toBeUndefined();
    expect(JSON.parse(asAlice.stdout)).toEqual({ crm: "alice@crm", notes: "alice@notes" });
    const asBob = await codeMode.executeCode({ code: program }, { threadId: "bob", userId: bob });
    expect(JSON.parse(asBob.stdout)).toEqual({ crm: "bob@crm", notes: "MCP_SERVER_NOT_FOUND" });
  }, 120_000);

  it("search_tools and the typed wrappers follow the place's user: the servers only their sessions know, their own servers", async () => {
    // The operator never signed in to crm: its tools are known to each signed-in user's session only.
    const found = async (user?: string) => (await codeMode.searchTools({ query: "who am I", limit: 10 }, user)).map((hit) => `${hit.server}/${hit.name}`);
    await expect.poll(() => found(alice), { timeout: 30_000 }).toEqual(expect.arrayContaining(["crm/whoami", "~notes/whoami"]));
    expect(await found(bob)).toContain("crm/whoami");
    expect(await found(bob)).not.toContain("~notes/whoami");
    expect(await found()).toEqual([]);
    const program = [
      'import { whoami as crm } from "servers/crm";',
      'import { whoami as notes } from "servers/notes";',
      "console.log(JSON.stringify([await crm({}), await notes({})]));",
    ].join("\n");
    const asAlice = await codeMode.executeCode({ code: program }, { threadId: "alice", userId: alice });
    expect(asAlice.error, asAlice.stderr).toBeUndefined();
    expect(asAlice.stdout).toContain("alice@crm");
    expect(asAlice.stdout).toContain("alice@notes");
    const asBob = await codeMode.executeCode({ code: program }, { threadId: "bob", userId: bob });
    expect(asBob.error?.code).toBe("CODE_BUILD_FAILED");
    expect(asBob.stderr).toContain('cannot import "servers/notes"');
    expect(asBob.tools_called).toEqual([]);
  }, 120_000);
});

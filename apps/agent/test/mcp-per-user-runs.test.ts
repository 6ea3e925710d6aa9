// Runs through the agent server's API with users' keys, against a real OAuth-protected MCP server
// (its whoami answers the account that approved the token): each run calls the server with its
// owner's own token, a user who never signed in is told the server needs sign-in, and a user's own
// remote server (users.<id>.mcpServers) is offered to them alone, as ~<name>.
import fs from "node:fs";
import { loadConfig } from "@thinktank/core";
import { createOAuthTokenStore, OAuthSignIn, type McpServerEntry } from "@thinktank/mcp";
import { startOAuthTestServer, type OAuthTestServer } from "@thinktank/mcp/testing";
import { parseChatScript, ScriptedChatModel } from "@thinktank/models";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAgentServer, type AgentServer } from "../src/index.js";

const script = {
  rules: [
    { when: { last_human: "^crm", step: 0, tool_available: "crm__whoami" }, tool_calls: [{ name: "crm__whoami", args: {} }] },
    { when: { last_human: "^notes", step: 0, tool_available: "_notes__whoami" }, tool_calls: [{ name: "_notes__whoami", args: {} }] },
    { when: { last_tool_name: "crm__whoami" }, reply: "{{lastToolResult}}" },
    { when: { last_tool_name: "_notes__whoami" }, reply: "{{lastToolResult}}" },
    { when: { system: "need the user to sign in before their tools can be used: crm" }, reply: "crm needs sign-in" },
    { reply: "no such tool" },
  ],
};

let temp: { dir: string; cleanup: () => void };
let oauth: OAuthTestServer;
let server: AgentServer;
const keys: Record<string, string> = {};

beforeAll(async () => {
  temp = makeTempDir("tt-agent-mcp-users-");
  fs.chmodSync(temp.dir, 0o755);
  oauth = await startOAuthTestServer();
  const crm: McpServerEntry = { type: "http", url: oauth.mcpUrl };
  writeTree(temp.dir, {
    "config.yaml": "data_dir: data\nlog:\n  level: silent\nsandbox:\n  warm_pool_size: 0\ncode_execution:\n  mode: direct\nmcp:\n  first_connect_grace_ms: 15000\n",
    "extensions_config.json": JSON.stringify({ mcpServers: { crm }, skills: {}, plugins: {}, tools: {} }),
  });
  const config = loadConfig({ cwd: temp.dir, env: { PATH: process.env.PATH ?? "" } });
  server = await buildAgentServer(config, { logger: false, prepare: { createModel: () => new ScriptedChatModel({ script: parseChatScript(script) }) } });
  const ids: Record<string, string> = {};
  for (const name of ["alice", "bob", "carol"]) {
    const { user, apiKey } = await server.identity.users.create({ name, role: "user" });
    ids[name] = user.id;
    keys[name] = apiKey;
  }
  // Alice and Bob sign in to crm (as the gateway's routes do, into the same token store); Carol does not.
  const store = createOAuthTokenStore(config);
  const signIn = async (name: string, user: string, account: string) => {
    const flow = new OAuthSignIn({ store, env: {}, clientName: "test", pendingTtlMs: 60_000, timeoutMs: 10_000 });
    const started = await flow.start(name, crm, { redirectUrl: "http://127.0.0.1:9/callback", user });
    await flow.finish(Object.fromEntries(new URL(await oauth.approve(started.authorizationUrl, { account })).searchParams), async () => crm);
  };
  await signIn("crm", ids.alice as string, "alice@crm");
  await signIn("crm", ids.bob as string, "bob@crm");
  await signIn("~notes", ids.alice as string, "alice@notes");
  await server.runtime.store.update((draft) => {
    draft.users = { [ids.alice as string]: { mcpServers: { notes: { type: "http", url: oauth.mcpUrl } } } };
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await oauth?.close();
  temp?.cleanup();
});

/** One run on a new thread as `key`'s holder; the last message. */
async function ask(key: string, content: string): Promise<string> {
  const headers = { "x-api-key": key };
  const thread = (await server.app.inject({ method: "POST", url: "/threads", headers, payload: {} })).json() as { thread_id: string };
  const waited = await server.app.inject({ method: "POST", url: `/threads/${thread.thread_id}/runs/wait`, headers, payload: { assistant_id: "lead_agent", input: { messages: [{ type: "human", content }] } } });
  expect(waited.statusCode, waited.body).toBe(200);
  const messages = (waited.json() as { messages: { content: unknown }[] }).messages;
  return String(messages.at(-1)?.content);
}

describe("runs call MCP servers as their owner", { timeout: 120_000 }, () => {
  it("each user's run reaches the server with their own token; one who never signed in is told to sign in", async () => {
    expect(await ask(keys.alice as string, "crm: who am I?")).toContain("alice@crm");
    expect(await ask(keys.bob as string, "crm: who am I?")).toContain("bob@crm");
    expect(await ask(keys.alice as string, "crm again")).toContain("alice@crm");
    expect(await ask(keys.carol as string, "crm: who am I?")).toBe("crm needs sign-in");
  });

  it("a user's own server is offered to them alone", async () => {
    expect(await ask(keys.alice as string, "notes: who am I?")).toContain("alice@notes");
    expect(await ask(keys.bob as string, "notes: who am I?")).toBe("no such tool");
  });
});

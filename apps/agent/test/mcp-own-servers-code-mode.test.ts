// A user's own remote server (users.<id>.mcpServers) in code mode through the agent server's /mcp
// endpoint, with users' keys and the MCP SDK client: its owner finds its tools with search_tools,
// lists it, and imports its typed wrapper in execute_code; another user sees none of it.
import fs from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { loadConfig } from "@thinktank/core";
import { createOAuthTokenStore, OAuthSignIn, type McpServerEntry } from "@thinktank/mcp";
import { startOAuthTestServer, type OAuthTestServer } from "@thinktank/mcp/testing";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAgentServer, type AgentServer } from "../src/index.js";

let temp: { dir: string; cleanup: () => void };
let oauth: OAuthTestServer;
let server: AgentServer;
let url: string;
const keys: Record<string, string> = {};
const clients: Client[] = [];

beforeAll(async () => {
  temp = makeTempDir("tt-agent-own-code-");
  fs.chmodSync(temp.dir, 0o755);
  oauth = await startOAuthTestServer();
  writeTree(temp.dir, {
    "config.yaml": "data_dir: data\nlog:\n  level: silent\nsandbox:\n  warm_pool_size: 0\nmcp:\n  first_connect_grace_ms: 15000\n",
    "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }),
  });
  const config = loadConfig({ cwd: temp.dir, env: { PATH: process.env.PATH ?? "" } });
  server = await buildAgentServer(config, { logger: false });
  const ids: Record<string, string> = {};
  for (const name of ["alice", "bob"]) {
    const { user, apiKey } = await server.identity.users.create({ name, role: "user" });
    ids[name] = user.id;
    keys[name] = apiKey;
  }
  // Alice's own server signs in with OAuth (as the gateway's routes do, into the same token store).
  const notes: McpServerEntry = { type: "http", url: oauth.mcpUrl };
  const flow = new OAuthSignIn({ store: createOAuthTokenStore(config), env: {}, clientName: "test", pendingTtlMs: 60_000, timeoutMs: 10_000 });
  const started = await flow.start("~notes", notes, { redirectUrl: "http://127.0.0.1:9/callback", user: ids.alice as string });
  await flow.finish(Object.fromEntries(new URL(await oauth.approve(started.authorizationUrl, { account: "alice@notes" })).searchParams), async () => notes);
  await server.runtime.store.update((draft) => {
    draft.users = { [ids.alice as string]: { mcpServers: { notes: { type: "http", url: oauth.mcpUrl } } } };
  });
  url = `${await server.app.listen({ port: 0, host: "127.0.0.1" })}/mcp`;
}, 60_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await server?.close();
  await oauth?.close();
  temp?.cleanup();
});

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: "test", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { "x-api-key": key } } }));
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const result = (await client.callTool({ name, arguments: args })) as { content: { type: string; text: string }[]; isError?: boolean };
  return { text: result.content.map((block) => block.text).join(""), isError: result.isError === true };
}

describe("a user's own server in code mode over /mcp", { timeout: 120_000 }, () => {
  it("its owner searches, lists and imports it; another user sees nothing of it", async () => {
    const alice = await connect(keys.alice as string);
    const bob = await connect(keys.bob as string);
    await expect.poll(async () => (await call(alice, "search_tools", { query: "who am I", detail: "full", limit: 3 })).text, { timeout: 60_000 }).toContain("/mnt/my-code-api/servers/notes/whoami.ts");
    expect((await call(alice, "list_servers", {})).text).toContain('"name":"~notes"');
    const program = 'import { whoami } from "servers/notes";\nconsole.log(JSON.stringify(await whoami({})));';
    const run = await call(alice, "execute_code", { code: program });
    expect(run.isError, run.text).toBe(false);
    expect(run.text).toContain("alice@notes");

    const searched = await call(bob, "search_tools", { query: "who am I notes", detail: "full", limit: 50 });
    expect(searched.text).not.toContain("notes");
    expect((await call(bob, "list_servers", {})).text).not.toContain("notes");
    const stolen = await call(bob, "execute_code", { code: program });
    expect(stolen.isError).toBe(true);
    expect(stolen.text).toContain("CODE_BUILD_FAILED");
    expect(stolen.text).not.toContain("alice@notes");
  });
});

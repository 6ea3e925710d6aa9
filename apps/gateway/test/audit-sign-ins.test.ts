import { startOAuthTestServer } from "@thinktank/mcp/testing";
import type { OAuthTestServer } from "@thinktank/mcp/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createTestGateway } from "./test-gateway.js";
import type { TestGateway } from "./test-gateway.js";

// A user's MCP sign-in and sign-out through the gateway, against a real authorization server: the
// audit log says who started it, that it completed (the callback carries no credentials), and who
// signed out, and holds neither the authorization code nor a token.
const adminKey = "audit-sign-ins-admin-key-0123";
let server: OAuthTestServer | undefined;
let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  await server?.close();
  gateway = undefined;
  server = undefined;
});

describe("audit of MCP sign-ins", () => {
  it("records the start, the completion and the sign-out with the user, and no code or token", async () => {
    server = await startOAuthTestServer();
    gateway = await createTestGateway({ apiKey: adminKey, extensions: { mcpServers: { crm: { type: "http", url: server.mcpUrl } }, skills: {}, plugins: {}, tools: {} } });
    const base = await gateway.app.listen({ host: "127.0.0.1", port: 0 });
    const created = (await gateway.app.inject({ method: "POST", url: "/api/users", headers: { "x-api-key": adminKey }, payload: { name: "ada", role: "user" } })).json() as { id: string; api_key: string };
    const asAda = { "x-api-key": created.api_key, "content-type": "application/json" };

    const started = await fetch(`${base}/api/mcp/servers/crm/auth`, { method: "POST", headers: asAda, body: "{}" });
    expect(started.status).toBe(200);
    const callback = await server.approve(((await started.json()) as { authorization_url: string }).authorization_url);
    const code = new URL(callback).searchParams.get("code") as string;
    const page = await fetch(callback, { headers: { accept: "text/html" } });
    expect(page.status).toBe(200);
    const signedOut = await fetch(`${base}/api/mcp/servers/crm/auth`, { method: "DELETE", headers: { "x-api-key": created.api_key } });
    expect(signedOut.status).toBe(200);

    const entries = ((await gateway.app.inject({ method: "GET", url: "/api/audit?limit=10", headers: { "x-api-key": adminKey } })).json() as { entries: Record<string, unknown>[] }).entries;
    expect(entries.slice(0, 3).map((entry) => [entry.action, entry.target, entry.outcome])).toEqual([
      ["mcp.sign_out", "crm", "ok"],
      ["mcp.sign_in", "crm", "ok"],
      ["mcp.sign_in.start", "crm", "ok"],
    ]);
    expect(entries[0]?.actor).toMatchObject({ id: created.id });
    expect(entries[2]?.actor).toMatchObject({ id: created.id });
    // The browser's callback has no credentials: the entry names whose sign-in it completed.
    expect(JSON.stringify(entries[1])).toContain(created.id);
    const text = JSON.stringify(entries);
    expect(text).not.toContain(code);
    expect(text).not.toContain(created.api_key);
    expect(text).not.toMatch(/access_token|refresh_token|Bearer /);
  });
});

// A remote MCP server that needs sign-in, end to end with real processes: the agent server finds
// it needs_auth (list_servers says so, its tools are not offered, the model is told), the user
// signs in through the gateway (POST .../auth, the authorization server's consent page, the
// gateway's callback), and the next run's execute_code program calls the protected tool.
import { startOAuthTestServer } from "@thinktank/mcp/testing";
import type { OAuthTestServer } from "@thinktank/mcp/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayRequest } from "./support/project-fixture.js";
import { useSuiteProject } from "./support/suite-agent.js";

const script = `
rules:
  - when: { last_human: "^servers", step: 0 }
    tool_calls: [{ name: list_servers, args: {} }]
  - when: { last_tool_name: list_servers }
    reply: "{{lastToolResult}}"
  - when: { last_human: "^who needs sign-in", system: "need the user to sign in before their tools can be used: crm" }
    reply: "crm needs sign-in"
  - when: { last_human: "^who needs sign-in" }
    reply: "nobody"
  - when: { last_human: "^add through code", step: 0 }
    tool_calls:
      - name: execute_code
        args:
          code: "import { add } from 'servers/crm'; const result = await add({ a: 40, b: 2 }); console.log('sum', JSON.stringify(result));"
  - when: { last_tool_name: execute_code }
    reply: "{{lastToolResult}}"
`;

let server: OAuthTestServer;
beforeAll(async () => {
  server = await startOAuthTestServer();
});
// Registered before the suite's hooks, so it runs after the agent and the gateway are stopped.
afterAll(async () => {
  await server?.close();
});

const suite = useSuiteProject(() => ({
  script,
  config: ["code_execution:", "  mode: code", "  timeout_seconds: 60", "sandbox:", "  warm_pool_size: 0", "mcp:", "  first_connect_grace_ms: 5000"],
  extensions: { mcpServers: { crm: { type: "http", url: server.mcpUrl, description: "The sales CRM" } } },
  gateway: true,
}));

const human = (content: string) => ({ messages: [{ type: "human", content }] });
async function answer(text: string): Promise<string> {
  const thread = await suite.client.threads.create();
  const values = (await suite.client.runs.wait(thread.thread_id, "lead_agent", { input: human(text) })) as { messages: { content: unknown }[] };
  return String(values.messages.at(-1)?.content);
}

describe("sign-in to a protected MCP server, end to end", { timeout: 240_000 }, () => {
  it("needs_auth → sign in through the gateway → the protected tool is called from execute_code", async () => {
    await expect
      .poll(async () => (JSON.parse(await answer("servers")) as { servers: { name: string; status: string }[] }).servers[0]?.status, { timeout: 60_000, interval: 500 })
      .toBe("needs_auth");
    const listed = JSON.parse(await answer("servers")) as { servers: { name: string; status: string; reason?: string; tool_count?: number }[] };
    expect(listed.servers[0]).toMatchObject({ name: "crm", status: "needs_auth", reason: expect.stringContaining("not signed in") });
    expect(await answer("who needs sign-in?")).toBe("crm needs sign-in");
    const unauthorizedBefore = server.stats().unauthorized;
    await answer("servers");
    expect(server.stats().unauthorized).toBe(unauthorizedBefore); // no retry storm between requests

    const started = await gatewayRequest(suite.gateway, "POST", "/api/mcp/servers/crm/auth", {});
    expect(started.status).toBe(200);
    const callback = await server.approve(String(started.body.authorization_url));
    expect(callback.startsWith(`${suite.gateway.url}/api/mcp/oauth/callback?`)).toBe(true);
    const page = await fetch(callback);
    expect([page.status, await page.text()]).toEqual([200, expect.stringContaining("Connected to <strong>crm</strong>")]);
    expect((await gatewayRequest(suite.gateway, "GET", "/api/mcp/servers/crm/auth")).body).toMatchObject({ signed_in: true });

    const ran = JSON.parse(await answer("add through code")) as { exit_code: number; stdout: string; tools_called: { tool: string; status: string }[] };
    expect(ran).toMatchObject({ exit_code: 0, tools_called: [{ tool: "crm.add", status: "ok" }] });
    expect(ran.stdout).toContain('"sum":42');
    await expect.poll(async () => answer("who needs sign-in?")).toBe("nobody");
  });
});

import { McpManager, createOAuthTokenStore } from "@thinktank/mcp";
import { startOAuthTestServer } from "@thinktank/mcp/testing";
import type { OAuthTestServer } from "@thinktank/mcp/testing";
import { browserPath, needs } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createTestGateway } from "./test-gateway.js";
import type { TestGateway } from "./test-gateway.js";

// The sign-in as a user does it, in a real headless Chromium (Debian's `chromium`, driven by
// playwright-core): the authorization server's consent page, then the gateway's callback page.
let server: OAuthTestServer | undefined;
let gateway: TestGateway | undefined;

afterEach(async () => {
  await gateway?.close();
  await server?.close();
});

describe("sign-in in a real browser", needs("browser"), () => {
  it("opens the authorization URL, approves, and lands on the gateway's 'connected' page; the agent then calls the protected tool", async () => {
    server = await startOAuthTestServer();
    gateway = await createTestGateway({ extensions: { mcpServers: { crm: { type: "http", url: server.mcpUrl } }, skills: {}, plugins: {}, tools: {} } });
    const base = await gateway.app.listen({ host: "127.0.0.1", port: 0 });
    const started = await fetch(`${base}/api/mcp/servers/crm/auth`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    const { authorization_url: authorizationUrl } = (await started.json()) as { authorization_url: string };

    const { chromium } = await import("playwright-core");
    // Root (CI) cannot use Chromium's own sandbox; the page is a local test page.
    const browser = await chromium.launch({ executablePath: browserPath() as string, args: ["--no-sandbox"] });
    try {
      const page = await browser.newPage();
      await page.goto(authorizationUrl);
      await page.click("#approve");
      await page.waitForURL((url) => url.pathname === "/api/mcp/oauth/callback");
      expect(await page.textContent("#outcome")).toBe("Connected");
      expect(await page.textContent("body")).toContain("Connected to crm. You can close this window.");
    } finally {
      await browser.close();
    }
    expect(await (await fetch(`${base}/api/mcp/servers/crm/auth`)).json()).toMatchObject({ signed_in: true });
    const manager = new McpManager({ mcp: gateway.config.mcp, env: {}, oauthStore: createOAuthTokenStore(gateway.config) }, { crm: { type: "http", url: server.mcpUrl } });
    try {
      expect((await manager.callTool("crm", "add", { a: 1, b: 2 })).structuredContent).toEqual({ sum: 3 });
    } finally {
      await manager.close();
    }
  }, 60_000);
});

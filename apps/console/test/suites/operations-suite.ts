// The operations pages in a real browser against the real gateway and agent server: an MCP server's
// state and tools, an OAuth sign-in to the local test authorization server that comes back to the
// console and a sign-out; a user adding and removing a remote server of their own (a cookie session
// with its CSRF token); a registered tool tried through its generated form; runs and the audit
// log listed; a memory file edited and deleted; a user and their keys made. Every page is checked
// with axe-core, at 360 px wide, and with a hostile tool description rendered as text. Run after the
// catalog's suite on the backend console-admin.test.ts shares, as the key-less local administrator
// `npm start` runs.
import { testServerEntry, type OAuthTestServer } from "@thinktank/mcp/testing";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectNoSeriousA11yViolations, openConsole, type ConsoleTab } from "../support/console-browser.js";
import type { BackendPart, Shared, SharedConsole } from "../support/console-suite.js";

const hostile = `Echo <img src=x onerror="window.__pwned=1"> back \u202Etxt.exe`;
const echoTool = {
  name: "echo_form",
  description: hostile,
  input_schema: {
    type: "object",
    properties: {
      text: { type: "string", description: "What to echo" },
      count: { type: "integer" },
      loud: { type: "boolean" },
      mood: { type: "string", enum: ["calm", "<b>wild</b>"] },
      tags: { type: "array", items: { type: "string" } },
      extra: { type: "object" },
    },
    required: ["text", "count"],
    additionalProperties: false,
  },
  runtime: "node",
  script: "let t='';process.stdin.on('data',d=>t+=d).on('end',()=>process.stdout.write(JSON.stringify({got:JSON.parse(t)})));\n",
  timeout: 20,
};

/** "list <path>" calls `ls` once (the run the activity page lists), then answers with its result. */
const rules = `
  - id: list
    when: { last_human: "^list (\\\\S+)", step: 0 }
    reply: "Listing it."
    tool_calls:
      - name: ls
        args: { path: "{{match.1}}" }
  - id: list-result
    when: { last_tool_name: ls }
    reply: "Listed: {{lastToolResult}}"
`;

/** What the operations pages need of the shared backend: its rules, two MCP servers, `works` (stdio) and `crm` behind the OAuth test server (started first). */
export function operationsBackend(oauth: OAuthTestServer): BackendPart {
  return { rules, config: ["mcp:", "  retries: 0"], extensions: { mcpServers: { works: testServerEntry(), crm: { type: "http", url: oauth.mcpUrl } } } };
}

export function operationsSuite(shared: Shared): void {
  describe("the operations pages in a browser", { timeout: 60_000 }, () => {
    let backend: SharedConsole["backend"];
    let browser: SharedConsole["browser"];
    /** One tab for the whole suite (a context costs seconds on a loaded machine); each flow goes to its page. */
    let tab: ConsoleTab;
    beforeAll(async () => {
      ({ backend, browser } = shared());
      expect((await backend.api("POST", "/api/tools", echoTool)).status).toBe(201);
      tab = await openConsole(backend.url, { browser });
    }, 120_000);
    afterAll(async () => {
      await tab?.close();
    });

    const open = async (path: string): Promise<ConsoleTab> => {
      await tab.page.goto(new URL(path, backend.url).href);
      return tab;
    };
    const card = (page: Page, name: string) => page.locator("article", { has: page.getByRole("heading", { name, exact: true }) });
    async function checkPage(tab: ConsoleTab, what: string): Promise<void> {
      await expectNoSeriousA11yViolations(tab.page, what);
      tab.expectNoProblems();
    }

    it("shows a server's state and tools, signs in to the OAuth server and comes back to the console, then signs out", async () => {
      await open("/servers");
      const { page } = tab;
      await page.getByRole("heading", { name: "MCP servers", level: 1 }).waitFor();
      // The page looks again every few seconds: the agent's state arrives without a reload.
      await card(page, "works").getByText("connected", { exact: true }).waitFor({ timeout: 30_000 });
      await card(page, "works").getByRole("button", { name: "Show tools" }).click();
      await card(page, "works").locator(".server-tools li").first().waitFor();
      expect(await card(page, "works").locator(".server-tools li").count()).toBeGreaterThan(0);
      await checkPage(tab, "/servers");

      const crm = card(page, "crm");
      await crm.getByText("needs auth", { exact: true }).waitFor({ timeout: 30_000 });
      // Refused at the authorization server: back on the page with the reason's code.
      await crm.getByRole("button", { name: "Sign in to crm" }).click();
      await page.waitForURL((url) => url.origin !== new URL(backend.url).origin);
      await page.click("#deny");
      await page.getByRole("status").filter({ hasText: "Sign-in to crm failed" }).getByText("OAUTH_AUTHORIZATION_FAILED").waitFor();
      await crm.getByRole("button", { name: "Sign in to crm" }).click();
      // The authorization server's consent page, then back through the gateway's callback to the console.
      await page.waitForURL((url) => url.origin !== new URL(backend.url).origin);
      await page.click("#approve");
      await page.waitForURL((url) => url.origin === new URL(backend.url).origin && url.pathname === "/servers");
      await page.getByRole("status").filter({ hasText: "Signed in to crm." }).waitFor();
      expect(new URL(page.url()).search).toBe("");
      await crm.getByText(/^signed in/).waitFor();

      await crm.getByRole("button", { name: "Sign out of crm" }).click();
      await page.getByRole("status").filter({ hasText: "Signed out of crm." }).waitFor();
      await crm.getByRole("button", { name: "Sign out of crm" }).waitFor({ state: "detached" });
      expect((await backend.api("GET", "/api/mcp/servers/crm/auth")).body).toMatchObject({ signed_in: false });
      await checkPage(tab, "/servers after sign-out");
    });

    it("adds a remote server as a user (their own, through a cookie session with its CSRF token) and removes it", async () => {
      const user = await backend.createUser("Ada");
      const mine = await openConsole(backend.url, { browser, apiKey: user.key, path: "/servers" });
      try {
        const { page } = mine;
        await page.getByLabel("Name").fill("notes");
        await page.getByLabel("URL").fill("http://127.0.0.1:9/mcp");
        await page.getByRole("button", { name: "Add server" }).click();
        await page.getByRole("status").filter({ hasText: "Added ~notes." }).waitFor();
        await card(page, "~notes").waitFor();
        // A user manages their own servers, never the shared ones, and has no users page.
        expect(await card(page, "works").getByRole("button", { name: /^Remove/ }).count()).toBe(0);
        expect(await page.getByRole("link", { name: "Users" }).count()).toBe(0);
        await card(page, "~notes").getByRole("button", { name: "Remove ~notes" }).click();
        await page.getByRole("status").filter({ hasText: "Removed ~notes." }).waitFor();
        await card(page, "~notes").waitFor({ state: "detached" });
        await checkPage(mine, "/servers as a user");
      } finally {
        await mine.close();
      }
    });

    it("tries a tool through the form made from its schema, shows its result as text and its recent calls", async () => {
      await open("/tools");
      const { page } = tab;
      const tool = card(page, "echo_form");
      await tool.waitFor();
      // The hostile description is text: the tag shows, nothing ran, the bidi override is visible as an escape.
      await tool.getByText("<img src=x", { exact: false }).waitFor();
      expect(await tool.locator("img").count()).toBe(0);
      expect(await tool.locator(".tool-description").textContent()).toContain("\\u202E");
      await tool.getByRole("button", { name: "Try echo_form" }).click();
      const form = tool.getByRole("region", { name: "Try echo_form" });
      await expect(form.getByText("(required)").count()).resolves.toBe(2);
      // A required field left empty is refused before anything is sent.
      await form.getByRole("button", { name: "Run echo_form" }).click();
      await form.getByRole("alert").filter({ hasText: "text is required" }).waitFor();
      await form.getByLabel(/^text/).fill("hi <script>alert(1)</script>");
      await form.getByLabel(/^count/).fill("3");
      await form.getByLabel(/^loud/).check();
      await form.getByLabel(/^mood/).selectOption({ label: "<b>wild</b>" });
      await form.getByLabel(/^tags/).fill("a\nb");
      await form.getByLabel(/^extra/).fill('{"deep": {"x": 1}}');
      // Submitted from the keyboard.
      await form.getByLabel(/^count/).press("Enter");
      const result = tool.locator(".tool-result pre");
      await result.waitFor();
      expect(JSON.parse((await result.textContent()) ?? "")).toEqual({ got: { text: "hi <script>alert(1)</script>", count: 3, loud: true, mood: "<b>wild</b>", tags: ["a", "b"], extra: { deep: { x: 1 } } } });
      await tool.getByRole("button", { name: "Recent calls" }).click();
      await tool.locator("tbody tr").first().waitFor();
      expect(await page.evaluate("window.__pwned")).toBeUndefined();
      await checkPage(tab, "/tools");
    });

    it("lists recent runs with their figures and the audit log", async () => {
      const agent = (path: string, body: unknown) => fetch(`${backend.agentUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      const threadId = ((await (await agent("/threads", {})).json()) as { thread_id: string }).thread_id;
      expect((await agent(`/threads/${threadId}/runs/wait`, { assistant_id: "lead_agent", input: { messages: [{ type: "human", content: "list /mnt/user-data/workspace" }] } })).status).toBe(200);
      await open("/activity");
      const { page } = tab;
      const row = page.locator(".runs-table tbody tr", { has: page.getByRole("link", { name: new RegExp(threadId.slice(0, 8)) }) });
      await row.waitFor();
      const cells = await row.locator("td").allTextContents();
      expect(cells[1]).toBe("success");
      expect(cells[2]).toMatch(/\d+(\.\d)? (ms|s)$/);
      expect(cells[3]).toMatch(/^≈\d+ \(\d+ \/ \d+\)$/);
      expect(cells[4]).toBe("1");
      const audit = page.locator(".audit-table");
      await audit.getByText("tool.register").first().waitFor();
      await page.getByLabel("Action").fill("tool.call");
      await page.getByRole("button", { name: "Filter" }).click();
      // The unfiltered rows name echo_form too (its registration): wait for the filtered list itself.
      await expect.poll(() => audit.getByText("tool.register").count(), { timeout: 20_000 }).toBe(0);
      await audit.getByText("echo_form").first().waitFor();
      await checkPage(tab, "/activity");
    });

    it("edits and deletes a memory file, writes one and forgets everything", async () => {
      expect((await backend.api("PUT", "/api/memory/notes/likes.md", { content: "Likes tea." })).status).toBe(200);
      await open("/memory");
      const { page } = tab;
      await page.getByRole("button", { name: "/memories/notes/likes.md" }).click();
      const editor = page.getByLabel("File text", { exact: true });
      await expect.poll(() => editor.inputValue()).toBe("Likes tea.");
      await editor.fill("Likes green tea.");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await page.getByRole("status").filter({ hasText: "Saved /memories/notes/likes.md." }).waitFor();
      expect((await backend.api("GET", "/api/memory/notes/likes.md")).body).toMatchObject({ content: "Likes green tea." });
      await checkPage(tab, "/memory");
      await page.getByRole("button", { name: "Delete this file" }).click();
      await page.getByRole("status").filter({ hasText: "Deleted /memories/notes/likes.md." }).waitFor();
      expect((await backend.api("GET", "/api/memory/notes/likes.md")).status).toBe(404);
      await page.getByText("No memory files yet.", { exact: false }).waitFor();
      // A file written here, then everything forgotten after the second, explicit confirmation.
      await page.getByLabel("Path under /memories").fill("todo.md");
      await page.getByLabel("New file text").fill("Buy milk.");
      await page.getByRole("button", { name: "Save file" }).click();
      await page.getByRole("button", { name: "/memories/todo.md" }).waitFor();
      await page.getByRole("button", { name: "Forget everything…" }).click();
      await page.getByRole("button", { name: "Yes, delete all memory" }).click();
      await page.getByRole("status").filter({ hasText: "Forgot everything: 1 file removed." }).waitFor();
      expect((await backend.api("GET", "/api/memory")).body).toMatchObject({ files: [] });
    });

    it("creates a user, shows their key once, makes another and revokes it", async () => {
      await open("/admin");
      const { page } = tab;
      await page.getByLabel("Name").fill("Grace");
      await page.getByRole("button", { name: "Create user" }).click();
      const key = page.getByLabel("New API key");
      await key.waitFor();
      const first = (await key.textContent()) ?? "";
      expect(first).toMatch(/^tt_u_/);
      // The key works: it names the new user.
      expect((await fetch(new URL("/api/me", backend.url), { headers: { "x-api-key": first } }).then((response) => response.json())) as { name: string }).toMatchObject({ name: "Grace" });
      await page.getByRole("button", { name: "I have copied it" }).click();
      expect(await key.count()).toBe(0);
      const grace = card(page, "Grace");
      await grace.getByRole("button", { name: "New key for Grace" }).click();
      await key.waitFor();
      expect(await key.textContent()).not.toBe(first);
      await expect.poll(() => grace.getByRole("button", { name: /^Revoke key/ }).count()).toBe(2);
      await grace.getByRole("button", { name: /^Revoke key/ }).first().click();
      await expect.poll(() => grace.getByRole("button", { name: /^Revoke key/ }).count()).toBe(1);
      await checkPage(tab, "/admin");
    });

    it("fits 360 px wide on every page, in dark mode too", async () => {
      await tab.page.setViewportSize({ width: 360, height: 740 });
      await tab.page.emulateMedia({ colorScheme: "dark" });
      for (const path of ["/servers", "/tools", "/activity", "/memory", "/admin"]) {
        await open(path);
        await tab.page.getByRole("heading", { level: 1 }).waitFor();
        expect([path, await tab.page.evaluate("document.documentElement.scrollWidth")]).toEqual([path, 360]);
        await checkPage(tab, `${path} at 360 px, dark`);
      }
    });
  });
}

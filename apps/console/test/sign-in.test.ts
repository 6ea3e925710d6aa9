// Signing in to the console in a real browser, against a service with an API key and an OpenID
// provider (docs/console.md, "Sign-in and sessions"): the sign-in page (axe-checked), a wrong key
// refused with its code, the administrator's key, the session cookie out of the page's reach and no
// credential in storage, a change without the CSRF token refused, sign-out; and the sign-in through
// the provider (authorization code with PKCE) that comes back to the console as the person it names,
// whose session the agent API under /agent accepts too.
import { needs } from "@thinktank/testing";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConsoleBackend, type ConsoleBackend } from "./support/console-backend.js";
import { expectNoSeriousA11yViolations, launchBrowser, openConsole } from "./support/console-browser.js";

const clientId = "thinktank-console";

describe("signing in to the console in a browser", { ...needs("browser"), timeout: 60_000 }, () => {
  let backend: ConsoleBackend;
  let browser: Browser;
  beforeAll(async () => {
    [backend, browser] = await Promise.all([startConsoleBackend({ apiKey: true, openId: { clientId } }), launchBrowser()]);
    // A public client (PKCE alone), whose callback is the gateway's own, as the browser names it.
    backend.openId?.addCodeClient({ clientId, redirectUris: [`${backend.gatewayUrl}/api/session/oidc/callback`] });
    backend.openId?.setPerson("carol", { name: "Carol" });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await backend?.close();
  });

  it("signs in with the administrator's key into an httpOnly session, refuses a wrong key and a change without the CSRF token, and signs out", async () => {
    const tab = await openConsole(backend.url, { browser });
    const { page } = tab;
    await page.goto(backend.url);
    await page.getByRole("heading", { name: "Sign in to Thinktank" }).waitFor();
    await expectNoSeriousA11yViolations(page, "the sign-in page");

    // Refusals are part of this flow: the 401 the wrong key gets, and the 403 the test provokes.
    tab.allow(/401|403/);
    await page.getByLabel("API key").fill("not-the-key");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("alert").waitFor();
    expect(await page.getByRole("alert").innerText()).toMatch(/UNAUTHENTICATED/);

    await page.getByLabel("API key").fill(backend.apiKey as string);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Users" }).waitFor();
    const cookies = await tab.context.cookies();
    expect(cookies.find((cookie) => cookie.name === "thinktank_session")).toMatchObject({ httpOnly: true, sameSite: "Strict" });
    const inPage = await page.evaluate(() => ({ cookie: document.cookie, local: localStorage.length, session: sessionStorage.length }));
    expect(inPage.cookie).not.toContain("thinktank_session");
    expect(inPage).toMatchObject({ local: 0, session: 0 });
    expect(JSON.stringify(await page.evaluate(() => Object.entries(localStorage)))).not.toContain(backend.apiKey as string);

    // The cookie alone does not make a change: without x-csrf-token it is refused.
    const forged = await page.evaluate(async () => {
      const response = await fetch("/api/memory/notes.md", { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ content: "forged" }) });
      return { status: response.status, body: (await response.json()) as { code?: string } };
    });
    expect(forged).toMatchObject({ status: 403, body: { code: "CSRF_FAILED" } });

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in to Thinktank" }).waitFor();
    expect((await tab.context.cookies()).find((cookie) => cookie.name === "thinktank_session")).toBeUndefined();
    tab.expectNoProblems();
    await tab.close();
  });

  it("signs in through the OpenID provider and comes back as the person it names, a user the agent API accepts too", async () => {
    const tab = await openConsole(backend.url, { browser });
    const { page } = tab;
    await page.goto(backend.url);
    await page.getByRole("link", { name: /^Sign in with / }).click();
    // The provider's own page: one form that signs in and consents.
    await page.getByLabel("Subject").fill("carol");
    await page.getByRole("button", { name: "Sign in and allow" }).click();
    await page.waitForURL((url) => url.origin === new URL(backend.gatewayUrl).origin && url.pathname === "/");
    await page.getByText("Carol").first().waitFor();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Chat" }).waitFor();
    expect(await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Users" }).count()).toBe(0);

    // The same session reaches the agent through /agent: Carol's thread list loads, and a thread she makes is hers.
    const made = await page.evaluate(async () => {
      const session = (await (await fetch("/api/session")).json()) as { csrfToken: string; user: { id: string; name: string } };
      const headers = { "content-type": "application/json", "x-csrf-token": session.csrfToken };
      const response = await fetch("/agent/threads", { method: "POST", headers, body: "{}" });
      const thread = (await response.json()) as { thread_id: string };
      const mine = (await (await fetch("/agent/threads/search", { method: "POST", headers, body: "{}" })).json()) as { thread_id: string }[];
      return { status: response.status, user: session.user, found: mine.some((each) => each.thread_id === thread.thread_id) };
    });
    expect(made).toMatchObject({ status: 200, user: { name: "Carol" }, found: true });
    await expectNoSeriousA11yViolations(page, "the chat as a user signed in through OpenID");
    tab.expectNoProblems();
    await tab.close();
  });
});

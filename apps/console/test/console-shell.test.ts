// The console in a real browser against the real gateway and agent server: the shell shows on a
// key-less loopback service (the local administrator, no sign-in page), with no page error, no CSP
// violation and no serious accessibility violation.
import { needs } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConsoleBackend, type ConsoleBackend } from "./support/console-backend.js";
import { expectNoSeriousA11yViolations, openConsole } from "./support/console-browser.js";

describe("the console's shell in a browser", { ...needs("browser"), timeout: 60_000 }, () => {
  let backend: ConsoleBackend;
  beforeAll(async () => {
    backend = await startConsoleBackend();
  }, 180_000);
  afterAll(async () => backend?.close());

  it("shows the navigation to the local administrator, without sign-in", async () => {
    const tab = await openConsole(backend.url, { path: "/" });
    try {
      const nav = tab.page.getByRole("navigation", { name: "Main" });
      await nav.waitFor();
      await expect(nav.getByRole("link", { name: "Chat" }).isVisible()).resolves.toBe(true);
      await expectNoSeriousA11yViolations(tab.page, "/");
    } finally {
      await tab.close();
    }
  });
});

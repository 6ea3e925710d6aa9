// The skills, plugins and marketplaces pages in a real browser against the real gateway and agent
// server, the corpus's skills installed: search a skill and open it (SKILL.md rendered, its files,
// script tools and context cost), switch it off and on, install a skill archive; add a folder
// marketplace, preview a corpus plugin (what it brings, its projected cost), install it, update it
// to a newer version (the version change shown), roll back, remove; a user sees no administrator's
// controls. axe-core on a marketplace's page with a plugin previewed (accessibility-suite.ts walks
// the other pages). Run first on the backend console-admin.test.ts shares (no plugin or marketplace
// yet), with the corpus's skills copied in before it starts.
import fs from "node:fs";
import path from "node:path";
import { buildZip } from "@thinktank/core";
import { corpusDir, makeTempDir, needs } from "@thinktank/testing";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectNoSeriousA11yViolations, openConsole, type ConsoleTab } from "../support/console-browser.js";
import type { BackendPart, Shared, SharedConsole } from "../support/console-suite.js";

const hostile = `<img src=x onerror="window.__pwned='img'"><script>window.__pwned='script'</script> \u202Eevil.txt`;

/** A local marketplace listing one corpus plugin (copied at test time), whose version the test bumps. */
function publishSales(market: string, version: string): void {
  const plugin = path.join(market, "sales");
  if (!fs.existsSync(plugin)) fs.cpSync(path.join(corpusDir(), "knowledge-work-plugins", "sales"), plugin, { recursive: true });
  const manifest = JSON.parse(fs.readFileSync(path.join(corpusDir(), "knowledge-work-plugins", "sales", ".claude-plugin", "plugin.json"), "utf8")) as Record<string, unknown>;
  fs.writeFileSync(path.join(plugin, ".claude-plugin", "plugin.json"), JSON.stringify({ ...manifest, version }));
  fs.mkdirSync(path.join(market, ".claude-plugin"), { recursive: true });
  // And a hostile entry: its description and its plugin's texts carry markup and a right-to-left override.
  fs.mkdirSync(path.join(market, "hostile", "commands"), { recursive: true });
  fs.writeFileSync(path.join(market, "hostile", "commands", "go.md"), `---\ndescription: ${JSON.stringify(hostile)}\n---\nGo.\n`);
  const plugins = [{ name: "sales", source: "./sales" }, { name: "hostile", source: "./hostile", version: "\u202E1.0", description: hostile }];
  fs.writeFileSync(path.join(market, ".claude-plugin", "marketplace.json"), JSON.stringify({ name: "local", owner: { name: "Tests" }, plugins }));
}

/** Waits until main shows a heading and nothing in it is busy. */
async function settled(page: Page): Promise<void> {
  await page.locator("main h1").first().waitFor({ timeout: 20_000 });
  await page.waitForFunction(() => document.querySelector("[aria-busy='true']") === null, undefined, { timeout: 20_000 });
}

/** What the catalog needs of the shared backend: the corpus's skills (when there is a corpus: without one the suite skips). */
export const catalogBackend: BackendPart = { corpus: { skills: needs("corpus").skip !== true } };

export function catalogSuite(shared: Shared): void {
  describe("skills, plugins and marketplaces in the browser", { ...needs("corpus"), timeout: 90_000 }, () => {
    let backend: SharedConsole["backend"];
    let browser: SharedConsole["browser"];
    let tab: ConsoleTab;
    let temp: { dir: string; cleanup: () => void };
    let market: string;

    beforeAll(async () => {
      temp = makeTempDir("tt-console-catalog-");
      market = path.join(temp.dir, "market");
      publishSales(market, "1.0.0");
      // Key-less on loopback: the browser is the local administrator, as after `npm start`.
      ({ backend, browser } = shared());
      tab = await openConsole(backend.url, { browser });
    }, 120_000);
    afterAll(async () => {
      await tab?.close();
      temp?.cleanup();
    });

    it("searches a skill and opens it: SKILL.md rendered, its files, script tools and context cost; switches it off and on", async () => {
      const { page } = tab;
      await page.goto(new URL("/skills", backend.url).href);
      await settled(page);
      await page.getByLabel("Search skills").fill("make an animated GIF for Slack");
      await page.getByRole("button", { name: "Search", exact: true }).click();
      const results = page.getByRole("region", { name: "Search results" });
      await results.getByRole("link", { name: "slack-gif-creator" }).first().click();
      await settled(page);
      expect(decodeURIComponent(new URL(page.url()).pathname)).toBe("/skills/custom:slack-gif-creator");
      await page.getByRole("heading", { name: "slack-gif-creator", level: 1 }).waitFor();
      await page.getByRole("heading", { name: "Context cost" }).waitFor();
      expect(await page.getByRole("region", { name: "Context cost" }).innerText()).toMatch(/Full listing\s+\d+ tokens in every request/);
      // SKILL.md rendered as Markdown (its own heading), and its files listed.
      await page.locator(".catalog-body h1", { hasText: "Slack GIF Creator" }).waitFor();
      expect(await page.getByRole("region", { name: "Files" }).innerText()).toContain("SKILL.md");
      await page.getByRole("region", { name: "Script tools" }).waitFor();

      const enabled = page.getByRole("checkbox", { name: /^Enabled/ });
      expect(await enabled.isChecked()).toBe(true);
      await enabled.click();
      await expect.poll(async () => (await backend.api("GET", "/api/skills/custom:slack-gif-creator")).body.enabled).toBe(false);
      await expect.poll(() => enabled.isChecked()).toBe(false);
      await enabled.click();
      await expect.poll(async () => (await backend.api("GET", "/api/skills/custom:slack-gif-creator")).body.enabled).toBe(true);
      tab.expectNoProblems();
    });

    it("installs a skill archive through the upload form", async () => {
      const { page } = tab;
      await page.goto(new URL("/skills", backend.url).href);
      await settled(page);
      const archive = buildZip([{ name: "field-guide/SKILL.md", data: "---\nname: field-guide\ndescription: Keeps a field guide of birds seen on walks.\n---\n# Field guide\n\nOne bird per line.\n" }]);
      await page.getByLabel("Skill archive (.skill or .zip)").setInputFiles({ name: "field-guide.skill", mimeType: "application/zip", buffer: archive });
      await page.getByRole("button", { name: "Install", exact: true }).click();
      await page.getByRole("status").filter({ hasText: "Installed custom:field-guide" }).waitFor();
      expect((await backend.api("GET", "/api/skills/custom:field-guide")).status).toBe(200);
      await page.getByRole("link", { name: "field-guide" }).first().waitFor();
      tab.expectNoProblems();
    });

    it("adds a folder marketplace, previews a plugin with its cost, installs it, updates it, rolls back and removes it", async () => {
      const { page } = tab;
      await page.goto(new URL("/marketplaces", backend.url).href);
      await settled(page);
      await page.getByText("No marketplaces yet. Add a marketplace").waitFor();
      await page.getByLabel("Source").fill(market);
      await page.getByRole("button", { name: "Add marketplace" }).click();
      await page.getByRole("status").filter({ hasText: "Added local with 2 plugins" }).waitFor();
      await page.getByRole("status").getByRole("link", { name: "local" }).click();
      await settled(page);
      await page.getByRole("button", { name: "Details of sales" }).click();
      const preview = page.locator(".catalog-preview");
      await preview.getByRole("heading", { name: "What it brings" }).waitFor();
      expect(await preview.innerText()).toMatch(/Skills \(\d+\)/);
      expect(await preview.getByRole("region", { name: "Context cost" }).innerText()).toMatch(/Compact listing\s+\d+ tokens in every request/);
      // The accessibility suite walks the list and detail pages; this one has a preview open.
      await expectNoSeriousA11yViolations(page, "a marketplace's page with a plugin's details open");
      // The hostile entry and its preview show as text: nothing ran, the override is a visible escape.
      await page.getByRole("button", { name: /^Details of hostile/ }).click();
      await page.locator(".catalog-preview code", { hasText: "/hostile:go" }).waitFor();
      const shown = await page.evaluate(() => ({ pwned: (window as unknown as { __pwned?: unknown }).__pwned ?? null, images: document.querySelectorAll("main img").length, text: document.querySelector("main")?.textContent ?? "" }));
      expect(shown.pwned).toBeNull();
      expect(shown.images).toBe(0);
      expect(shown.text).toContain("<img src=x onerror=");
      expect(shown.text).toContain("\\u202Eevil.txt");
      expect(shown.text).not.toContain("\u202E");
      await page.getByRole("button", { name: "Install sales" }).click();
      await page.getByRole("status").filter({ hasText: "Installed sales 1.0.0." }).waitFor();

      publishSales(market, "1.1.0");
      await page.goto(new URL("/marketplaces", backend.url).href);
      await settled(page);
      await page.getByRole("button", { name: "Update local" }).click();
      await page.getByRole("status").filter({ hasText: "Fetched again" }).waitFor();
      await page.goto(new URL("/plugins/sales", backend.url).href);
      await settled(page);
      await page.getByText("(an update is available)").waitFor();
      await page.getByRole("button", { name: "Update", exact: true }).click();
      await page.getByRole("status").filter({ hasText: "Updated sales: 1.0.0 → 1.1.0." }).waitFor();
      await page.getByRole("button", { name: "Roll back to 1.0.0" }).click();
      await page.getByRole("status").filter({ hasText: "Rolled back sales: 1.1.0 → 1.0.0." }).waitFor();
      expect((await backend.api("GET", "/api/plugins/sales")).body.version).toBe("1.0.0");
      await page.getByRole("button", { name: "Remove…" }).click();
      await page.getByRole("button", { name: "Remove it for good" }).click();
      await page.waitForURL((url) => url.pathname === "/plugins");
      await page.getByText("No plugins installed.").waitFor();
      expect((await backend.api("GET", "/api/plugins/sales")).status).toBe(404);
      tab.expectNoProblems();
    });

    it("a user sees the catalog without the administrator's controls, and switches a skill off for themselves alone", async (context) => {
      // Signing a browser in with a user's key needs POST /api/session (the console's session routes).
      if ((await backend.api("POST", "/api/session", {})).status === 404) return context.skip("POST /api/session is not served yet: a user cannot sign in to the console");
      const user = await backend.createUser("Uma");
      const own = await openConsole(backend.url, { browser, apiKey: user.key, path: "/marketplaces" });
      try {
        const { page } = own;
        await settled(page);
        await page.getByRole("link", { name: "local" }).waitFor();
        expect(await page.getByRole("button", { name: /Update|Remove/ }).count()).toBe(0);
        expect(await page.getByLabel("Source").count()).toBe(0);
        await page.goto(new URL("/skills/custom%3Afield-guide", backend.url).href);
        await settled(page);
        await page.getByRole("checkbox", { name: /^Enabled/ }).click();
        await page.getByText("your choice; the default is on").waitFor();
        expect((await backend.api("GET", "/api/skills/custom:field-guide")).body.enabled).toBe(true);
        expect((await backend.api("GET", "/api/skills/custom:field-guide", undefined, user.key)).body.enabled).toBe(false);
        own.expectNoProblems();
      } finally {
        await own.close();
      }
    });
  });
}

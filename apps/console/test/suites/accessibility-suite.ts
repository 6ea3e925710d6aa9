// Every page of the console for people (docs/console.md, "For people"): axe-core on each route the
// navigation offers, and on the first detail page each list links to (a thread, a skill, a plugin,
// ...), as the local administrator (key-less loopback; in light, in dark and at 360 px) and as a
// user signed in with a key (light): no serious or critical violation; at 360 px no page scrolls sideways; the
// skip link is the first Tab stop and moves focus to the content, and Tab reaches every link of the
// navigation. The routes are read from the navigation, so a page that lands is walked at once; the
// walk follows the navigation's links and the lists' links as a person does (one page load, axe
// loaded once), and a page is checked only once main shows its own headings.
// Run after the chat's suite on the backend console-pages.test.ts shares: its threads are listed too.
import type { Locator, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { expectNoSeriousA11yViolations, openConsole, type ConsoleTab } from "../support/console-browser.js";
import type { BackendPart, Shared } from "../support/console-suite.js";

/** A skill and a local plugin (with a skill and a command) so the skills and plugins pages have detail pages. */
export const accessibilityBackend: BackendPart = {
  files: {
    "skills/custom/field-notes/SKILL.md": "---\nname: field-notes\ndescription: Keeps field notes in a notebook\n---\n# Field notes\n\nWrite one note per line.\n",
    "local-plugins/garden/.claude-plugin/plugin.json": JSON.stringify({ name: "garden", version: "1.0.0", description: "Garden helpers" }),
    "local-plugins/garden/skills/pruning/SKILL.md": "---\nname: pruning\ndescription: When and how to prune\n---\nPrune in late winter.\n",
    "local-plugins/garden/commands/water.md": "---\ndescription: Water the garden\n---\nWater everything.\n",
  },
};

/** Waits until the page shows its content: a heading in main (every page has one), nothing busy. */
async function settled(page: Page, what = page.url()): Promise<void> {
  try {
    await page.locator("main h1, main h2").first().waitFor({ timeout: 20_000 });
    await page.waitForFunction(() => document.querySelector("[aria-busy='true']") === null, undefined, { timeout: 20_000 });
  } catch (error) {
    const shown = (await page.locator("body").innerText().catch(() => "")).slice(0, 400);
    throw new Error(`${what}: no heading in main, or still busy, after 20 s (${(error as Error).message.split("\n")[0]}); the page shows:\n${shown}`);
  }
}

/** The routes of the navigation (in order), as the page offers them. */
async function navRoutes(page: Page): Promise<{ name: string; path: string }[]> {
  const links = page.getByRole("navigation", { name: "Main" }).getByRole("link");
  await links.first().waitFor();
  return links.evaluateAll((anchors) => anchors.map((anchor) => ({ name: (anchor.textContent ?? "").trim(), path: new URL((anchor as HTMLAnchorElement).href).pathname })));
}

/** The first link in main to a page below `route` (a detail page), if the list has one: its path and its index among main's links. */
async function firstDetailRoute(page: Page, route: string): Promise<{ path: string; index: number } | undefined> {
  const prefixes = route === "/" ? ["/threads/"] : [`${route}/`];
  const hrefs = await page.locator("main a[href]").evaluateAll((anchors) => anchors.map((anchor) => new URL((anchor as HTMLAnchorElement).href).pathname));
  const index = hrefs.findIndex((href) => prefixes.some((prefix) => href.startsWith(prefix) && href.length > prefix.length));
  return index < 0 ? undefined : { path: hrefs[index] as string, index };
}

/** The texts of main's h1 and h2 headings: every page (and every detail page) has its own. */
const headings = (page: Page): Promise<string> => page.locator("main").evaluate((main) => [...main.querySelectorAll("h1, h2")].map((heading) => heading.textContent?.trim()).join(" | "));

/**
 * Follows a link as a person does (the console routes in the page: no reload, so axe stays loaded),
 * then waits for the URL and for main to show another page's headings than before (the new page
 * rendered, not the old one still shown while the new one loads).
 */
async function follow(page: Page, link: Locator, path: string): Promise<void> {
  const before = await headings(page);
  await link.click();
  await page.waitForURL((url) => url.pathname === path);
  try {
    await page.waitForFunction((old) => [...(document.querySelector("main")?.querySelectorAll("h1, h2") ?? [])].map((heading) => heading.textContent?.trim()).join(" | ") !== old, before, { timeout: 20_000 });
  } catch (error) {
    throw new Error(`${path}: main still shows the headings of the page before (${before}) after 20 s (${(error as Error).message.split("\n")[0]})`);
  }
}

/** Whether the page scrolls sideways at this width, and what sticks out past the right edge (to name in the failure). */
async function overflowing(page: Page): Promise<{ scrolls: number; culprits: string[] }> {
  return page.evaluate(() => {
    window.scrollTo(10_000, 0);
    const scrolls = window.scrollX;
    window.scrollTo(0, 0);
    const view = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll("body *")].filter((element) => element.getBoundingClientRect().right > view + 0.5);
    // Where the overflow starts (its parent fits), and anything positioned out of its parent's flow.
    const culprits = wide.filter((element) => !wide.includes(element.parentElement as Element) || ["absolute", "fixed"].includes(getComputedStyle(element).position));
    const describe = (element: Element) =>
      `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ""}${typeof element.className === "string" && element.className.trim() ? `.${element.className.trim().split(/\s+/).join(".")}` : ""} (right ${Math.round(element.getBoundingClientRect().right)})`;
    return { scrolls, culprits: culprits.slice(0, 6).map(describe) };
  });
}

/**
 * axe in light and (with `variants`) the contrast in dark, then no sideways scroll at 360 px (and
 * with `variants` axe's contrast and scrolling-region rules there); leaves the page light at 1280 px.
 * Answers what failed.
 */
async function checkRoute(page: Page, what: string, variants: boolean): Promise<string[]> {
  const failures: string[] = [];
  const attempt = async (step: () => Promise<void>) => {
    try {
      await step();
    } catch (error) {
      failures.push((error as Error).message);
    }
  };
  await settled(page, what);
  await page.emulateMedia({ colorScheme: "light" });
  await attempt(() => expectNoSeriousA11yViolations(page, `${what} (light)`));
  // In dark and at 360 px only what can change there: contrast, and tables that now scroll.
  if (variants) {
    await page.emulateMedia({ colorScheme: "dark" });
    await attempt(() => expectNoSeriousA11yViolations(page, `${what} (dark)`, ["color-contrast"]));
    await page.emulateMedia({ colorScheme: "light" });
  }
  await page.setViewportSize({ width: 360, height: 740 });
  try {
    const found = await overflowing(page);
    if (found.scrolls > 0) failures.push(`${what} scrolls sideways at 360 px (by ${found.scrolls} px): ${found.culprits.join(", ")}`);
    if (variants) await attempt(() => expectNoSeriousA11yViolations(page, `${what} (360 px)`, ["color-contrast", "scrollable-region-focusable"]));
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
  return failures;
}

/**
 * Walks every navigation route and the first detail page of each (checkRoute; `variants`: dark and
 * 360 px axe too); answers the routes walked, and fails listing every violation found.
 */
async function walk(tab: ConsoleTab, url: string, variants: boolean): Promise<string[]> {
  const { page } = tab;
  await page.goto(url);
  const routes = await navRoutes(page);
  const walked: string[] = [];
  const failures: string[] = [];
  const navigation = page.getByRole("navigation", { name: "Main" });
  for (const [position, route] of routes.entries()) {
    // The first page is the one loaded; the others are reached through the navigation.
    if (position > 0 || new URL(page.url()).pathname !== route.path) await follow(page, navigation.getByRole("link", { name: route.name, exact: true }), route.path);
    failures.push(...(await checkRoute(page, route.path, variants)));
    walked.push(route.path);
    const detail = await firstDetailRoute(page, route.path);
    if (detail) {
      await follow(page, page.locator("main a[href]").nth(detail.index), detail.path);
      failures.push(...(await checkRoute(page, detail.path, variants)));
      walked.push(detail.path);
    }
  }
  if (failures.length > 0) throw new Error(`walked ${walked.join(", ")}:\n${failures.join("\n")}`);
  tab.expectNoProblems();
  return walked;
}

export function accessibilitySuite(shared: Shared): void {
  describe("the console for people: every page with axe-core, light and dark, 360 px, the keyboard", { timeout: 180_000 }, () => {
    let userKey: string;

    beforeAll(async () => {
      const { backend } = shared();
      const installed = await backend.api("POST", "/api/plugins/install", { path: `${backend.projectDir}/local-plugins/garden` });
      if (installed.status !== 201) throw new Error(`installing the plugin: ${installed.status} ${JSON.stringify(installed.body)}`);
      userKey = (await backend.createUser("Uma")).key;
      // A thread for each with an answer in it, so the chat's thread page is walked too.
      for (const key of [undefined, userKey]) {
        const thread = await backend.api("POST", "/agent/threads", {}, key);
        const ran = await backend.api("POST", `/agent/threads/${thread.body.thread_id as string}/runs/wait`, { assistant_id: "lead_agent", input: { messages: [{ role: "user", content: "hello" }] } }, key);
        if (ran.status !== 200) throw new Error(`a run: ${ran.status} ${JSON.stringify(ran.body)}`);
      }
    }, 120_000);

    it("as the local administrator: no serious violation on any page, light or dark, nothing wider than 360 px", async () => {
      const { backend, browser } = shared();
      const tab = await openConsole(backend.url, { browser });
      try {
        const walked = await walk(tab, backend.url, true);
        expect(walked).toEqual(expect.arrayContaining(["/", "/skills", "/plugins", "/servers", "/admin"]));
      } finally {
        await tab.close();
      }
    });

    // The pages' styles are the administrator's: in dark and at 360 px axe runs once, above.
    it("as a user signed in with a key: no serious violation, nothing wider than 360 px, no administrator's page offered", async () => {
      const { backend, browser } = shared();
      const tab = await openConsole(backend.url, { browser, apiKey: userKey });
      try {
        const walked = await walk(tab, backend.url, false);
        expect(walked).toEqual(expect.arrayContaining(["/", "/skills", "/plugins"]));
        expect(walked).not.toContain("/admin");
      } finally {
        await tab.close();
      }
    });

    it("with the keyboard: the skip link comes first and moves focus to the content; Tab reaches every navigation link", async () => {
      const { backend, browser } = shared();
      const tab = await openConsole(backend.url, { browser });
      try {
        const { page } = tab;
        await page.goto(backend.url);
        const routes = await navRoutes(page);
        await settled(page);
        await page.keyboard.press("Tab");
        const first = await page.evaluate(() => {
          const active = document.activeElement as HTMLElement;
          const box = active.getBoundingClientRect();
          return { text: active.textContent?.trim(), href: active.getAttribute("href"), visible: box.width > 0 && box.height > 0 && box.top >= 0 && box.top < window.innerHeight };
        });
        expect(first).toEqual({ text: "Skip to content", href: "#content", visible: true });
        await page.keyboard.press("Enter");
        expect(await page.evaluate(() => document.activeElement?.id)).toBe("content");

        // From the top again: Tab through the header until each navigation link had focus.
        await page.goto(backend.url);
        await settled(page);
        const reached: string[] = [];
        for (let presses = 0; presses < routes.length + 10 && reached.length < routes.length; presses++) {
          await page.keyboard.press("Tab");
          const focused = await page.evaluate(() => {
            const active = document.activeElement;
            return active?.closest("nav[aria-label='Main']") && active instanceof HTMLAnchorElement ? new URL(active.href).pathname : undefined;
          });
          if (focused) reached.push(focused);
        }
        expect(reached).toEqual(routes.map((route) => route.path));
        tab.expectNoProblems();
      } finally {
        await tab.close();
      }
    });
  });
}

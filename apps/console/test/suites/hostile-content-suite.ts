// Hostile content in a real browser (issue 31, "Safe with hostile content"): a skill and a plugin
// whose names, descriptions, author and links carry HTML, <script>, <img onerror>, javascript: links
// and a right-to-left override (U+202E), installed through the API, and a model answer and a tool
// result carrying the same. On the skills and plugins pages (list and detail) and in the chat they
// show as text: no script runs (the flag each payload would set stays unset, no dialog opens), no
// element carries an event handler or a javascript: link, the override shows as a visible escape,
// and no CSP violation happens (nothing reached the point where CSP had to block it). A control
// writes the same payload into a page as HTML: CSP blocks it and the collector sees the violation,
// so the checks above can fail. Run after the accessibility walk on the backend console-pages.test.ts
// shares (the walk sees none of this), its skill and plugin installed by this suite.
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openConsole, type ConsoleTab } from "../support/console-browser.js";
import type { BackendPart, Shared } from "../support/console-suite.js";

/** Each way in sets window.__pwned to a word naming it, were it to run. */
const payload =
  `<b>bold</b><script>window.__pwned="script"</script><img src=x onerror="window.__pwned='img'"><svg onload="window.__pwned='svg'"></svg>` +
  ` [link](javascript:window.__pwned='link') <a href="javascript:window.__pwned='anchor'">anchor</a> <iframe src="javascript:window.__pwned='frame'"></iframe> \u202Eevil\u202C.txt`;
const skillName = `<img src=x onerror=window.__pwned='name'>\u202Egnp.exe`;
const pluginSkillName = `<script>window.__pwned='skill'</script>\u202Eevil`;

/** The scripted model: "hostile" answers the payload as Markdown, after an `ls` whose path (echoed in its result) is the payload. */
const rules = `
  - id: hostile
    when: { last_human: "^hostile", step: 0 }
    reply: ${JSON.stringify(`Looking. ${payload}`)}
    tool_calls:
      - name: ls
        args: { path: ${JSON.stringify(`/mnt/user-data/${payload}`)} }
  - id: hostile-result
    when: { last_human: "^hostile", last_tool_name: ls }
    reply: ${JSON.stringify(`Done. ${payload}`)}
`;

const frontmatter = (name: string) => `---\nname: ${JSON.stringify(name)}\ndescription: ${JSON.stringify(payload)}\n---\n# Body\n\n${payload}\n`;
/** Its rules, and the hostile skill and plugin as folders this suite installs. */
export const hostileContentBackend: BackendPart = { rules, files: {
  "hostile/hostile-skill/SKILL.md": frontmatter(skillName),
  "hostile/hostile-plugin/.claude-plugin/plugin.json": JSON.stringify({
    name: "hostile-plugin",
    version: "1.0.0",
    description: payload,
    author: { name: payload, url: "javascript:window.__pwned='author'" },
    homepage: "javascript:window.__pwned='homepage'",
    repository: "javascript:window.__pwned='repository'",
  }),
  "hostile/hostile-plugin/skills/evil/SKILL.md": frontmatter(pluginSkillName),
  "hostile/hostile-plugin/commands/evil.md": `---\ndescription: ${JSON.stringify(payload)}\n---\n${payload}\n`,
} };

/** What a page holds that a payload could have made: the flag, handlers, scripts, javascript: links, raw overrides. */
async function harmless(page: Page, what: string): Promise<void> {
  const found = await page.evaluate(() => {
    const main = document.querySelector("main");
    const all = [...document.querySelectorAll("*")];
    return {
      pwned: (window as unknown as { __pwned?: unknown }).__pwned ?? null,
      handlers: all.filter((element) => [...element.attributes].some((attribute) => attribute.name.toLowerCase().startsWith("on"))).map((element) => element.outerHTML.slice(0, 120)),
      scripts: [...document.scripts].filter((element) => !element.src || new URL(element.src).origin !== location.origin).map((element) => element.outerHTML.slice(0, 120)),
      frames: document.querySelectorAll("iframe, object, embed, svg script").length,
      javascriptUrls: all
        .flatMap((element) => ["href", "src", "action", "formaction", "xlink:href"].map((name) => element.getAttribute(name) ?? ""))
        .filter((value) => /^\s*javascript:/i.test(value.replace(/[\u0000-\u001F]/g, ""))),
      // Where an override is shown raw: the elements holding it, by tag and class.
      rawOverride: (() => {
        const found: string[] = [];
        if (!main) return found;
        const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const parent = node.parentElement;
          if (node.textContent?.includes("\u202E") && parent && parent.checkVisibility()) found.push(`${parent.tagName.toLowerCase()}.${parent.className}`);
        }
        return found;
      })(),
    };
  });
  expect(found, what).toEqual({ pwned: null, handlers: [], scripts: [], frames: 0, javascriptUrls: [], rawOverride: [] });
}

/** Waits until main shows a heading and nothing in it is busy. */
async function settled(page: Page): Promise<void> {
  await page.locator("main h1, main h2").first().waitFor({ timeout: 20_000 });
  await page.waitForFunction(() => document.querySelector("[aria-busy='true']") === null, undefined, { timeout: 20_000 });
}

export function hostileContentSuite(shared: Shared): void {
  describe("hostile names, descriptions, answers and tool results in the browser", { timeout: 120_000 }, () => {
    let thread: string;
    let skillIdentity: string;
    let tab: ConsoleTab;

    beforeAll(async () => {
      const { backend, browser } = shared();
      const skill = await backend.api("POST", "/api/skills/install", { path: path.join(backend.projectDir, "hostile", "hostile-skill") });
      if (skill.status !== 201) throw new Error(`installing the skill: ${skill.status} ${JSON.stringify(skill.body)}`);
      skillIdentity = skill.body.identity as string;
      const plugin = await backend.api("POST", "/api/plugins/install", { path: path.join(backend.projectDir, "hostile", "hostile-plugin") });
      if (plugin.status !== 201) throw new Error(`installing the plugin: ${plugin.status} ${JSON.stringify(plugin.body)}`);
      const created = await backend.api("POST", "/agent/threads", {});
      thread = created.body.thread_id as string;
      const ran = await backend.api("POST", `/agent/threads/${thread}/runs/wait`, { assistant_id: "lead_agent", input: { messages: [{ role: "user", content: "hostile" }] } });
      if (ran.status !== 200) throw new Error(`the run: ${ran.status} ${JSON.stringify(ran.body)}`);
      tab = await openConsole(backend.url, { browser });
    }, 120_000);
    afterAll(async () => tab?.close());

    it("the skills page and the skill's page show its name and description as text, with the override visible", async () => {
      const { backend } = shared();
      const { page } = tab;
      await page.goto(new URL("/skills", backend.url).href);
      await settled(page);
      await page.getByText("onerror=window.__pwned='name'", { exact: false }).first().waitFor();
      await harmless(page, "/skills");
      expect(await page.locator("main").innerText()).toContain("\\u202E");
      await page.goto(new URL(`/skills/${encodeURIComponent(skillIdentity)}`, backend.url).href);
      await settled(page);
      await page.getByText("window.__pwned='img'", { exact: false }).first().waitFor();
      await harmless(page, "the skill's page");
      tab.expectNoProblems();
    });

    it("the plugins page and the plugin's page show its description, author, links, skill and command as text", async () => {
      const { backend } = shared();
      const { page } = tab;
      await page.goto(new URL("/plugins", backend.url).href);
      await settled(page);
      await page.getByText("hostile-plugin").first().waitFor();
      await harmless(page, "/plugins");
      await page.goto(new URL("/plugins/hostile-plugin", backend.url).href);
      await settled(page);
      await page.getByText("window.__pwned='img'", { exact: false }).first().waitFor();
      await harmless(page, "the plugin's page");
      tab.expectNoProblems();
    });

    it("the chat shows the model's answer and the tool's result as text", async () => {
      const { backend } = shared();
      const { page } = tab;
      await page.goto(new URL(`/threads/${thread}`, backend.url).href);
      await settled(page);
      await page.getByText("Done.", { exact: false }).first().waitFor();
      // Open every collapsed card (tool calls), so their arguments and results are in the page too.
      for (const summary of await page.locator("main summary, main button[aria-expanded='false']").all()) await summary.click();
      await harmless(page, "the thread");
      expect(await page.locator("main").innerText()).toContain("onerror");
      tab.expectNoProblems();
    });

    it("control: the same payload written into the page as HTML is blocked by the CSP, and the collector sees it", async () => {
      const { backend, browser } = shared();
      const control = await openConsole(backend.url, { browser, path: "/" });
      try {
        await control.page.locator("main").waitFor();
        await control.page.evaluate((html) => {
          const holder = document.createElement("div");
          holder.innerHTML = html;
          document.body.append(holder);
        }, payload);
        await control.page.waitForFunction(() => document.querySelector("img[onerror]") !== null);
        await expect.poll(() => control.problems.some((problem) => problem.kind === "csp")).toBe(true);
        expect(await control.page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned ?? null)).toBeNull();
        control.problems.splice(0);
      } finally {
        await control.close();
      }
    });
  });
}

// The chat page in a real browser against the real gateway and agent server (the scripted chat
// model): a streamed answer with hostile Markdown rendered harmlessly, a tool card, a sub-agent card
// with its own steps and tokens, skills offered (compact listing) and read (a skill run as a slash
// command picked from the completion list), an approval approved and one rejected with a message,
// a question answered, an upload and a presented file downloaded, a run followed again after
// leaving its thread and stopped, and the thread list's rename, search and delete; axe-core at
// 1280 and 360 px, light and dark. Run first on the backend console-pages.test.ts shares (the
// local administrator has no thread yet).
import fs from "node:fs";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { expectNoSeriousA11yViolations, openConsole, type ConsoleTab } from "../support/console-browser.js";
import type { BackendPart, Shared } from "../support/console-suite.js";

/** Long enough that its chunks arrive over several reads, so the page paints it while it streams. */
const longReply = Array.from({ length: 120 }, (_, index) => `word${index}`).join(" ");

const rules = `
  - id: hello
    when: { last_human: "^hello", step: 0 }
    reply: "**Hello** there. <img src=x onerror=alert(1)> [click](javascript:alert(1)) report\\u202Etxt.exe ${longReply} done."
  - id: list
    when: { last_human: "^list (\\\\S+)", step: 0 }
    reply: "Listing it."
    tool_calls:
      - name: ls
        args: { path: "{{match.1}}" }
  - id: sub
    when: { last_human: "^sub:", step: 0 }
    tool_calls:
      - name: ls
        args: { path: "/mnt/user-data" }
  - id: list-result
    when: { last_tool_name: ls }
    reply: "Listed: {{lastToolResult}}"
  - id: delegate
    when: { last_human: "^delegate", step: 0 }
    tool_calls:
      - name: task
        args: { subagent_type: general-purpose, description: "Look at the files", prompt: "sub: list the files" }
  - id: delegated
    when: { last_tool_name: task }
    reply: "The sub-agent is done."
  - id: stamp
    when: { last_human: "^stamp (\\\\w+)", step: 0 }
    tool_calls:
      - name: stamp
        args: { text: "{{match.1}}" }
  - id: stamped
    when: { last_tool_name: stamp }
    reply: "stamp said: {{lastToolResult}}"
  - id: wait
    when: { last_human: "^wait", step: 0 }
    tool_calls:
      - name: stall
        args: {}
  - id: ask
    when: { last_human: "^ask", step: 0 }
    tool_calls:
      - name: request_human_input
        args: { question: "Which colour?" }
  - id: answered
    when: { last_tool_name: request_human_input }
    reply: "Your colour is {{lastToolResult}}."
  - id: present
    when: { last_human: "^present", step: 0 }
    tool_calls:
      - name: write_file
        args: { path: /mnt/user-data/outputs/report.md, content: "# The report" }
  - id: wrote
    when: { last_tool_name: write_file }
    tool_calls:
      - name: present_files
        args: { paths: [/mnt/user-data/outputs/report.md] }
  - id: presented
    when: { last_tool_name: present_files }
    reply: "Here is your report."
  - id: command
    when: { slash_command: true }
    reply: "Ran the command."
`;

/** A registered tool (trusted, on the host): under tools.approval: always its first call in a thread asks. */
const stamp = { description: "Stamp a text", runtime: "node", script: "stamp.js", timeout: 30, input_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } };
/** A registered tool that runs until its run is cancelled. */
const stall = { description: "Wait for ever", runtime: "node", script: "stall.js", timeout: 300, input_schema: { type: "object", properties: {} } };
const stampScript = "let input = '';\nprocess.stdin.on('data', (chunk) => (input += chunk));\nprocess.stdin.on('end', () => console.log(JSON.stringify({ stamped: JSON.parse(input).text })));\n";

/** What the chat needs of the shared backend: its rules, compact skill listing, approval for every script tool, stamp and stall, the notes skill. */
export const chatBackend: BackendPart = {
  rules,
  config: ["skills:", "  listing: compact", "tools:", "  approval: always"],
  extensions: { tools: { stamp, stall } },
  files: { "tools/stall.js": "setInterval(() => {}, 60_000);\n", "tools/stamp.js": stampScript, "skills/public/notes/SKILL.md": "---\nname: notes\ndescription: Take notes about birds such as pelicans\n---\nWrite the notes down.\n" },
};

export function chatSuite(shared: Shared): void {
  describe("the chat page", { timeout: 60_000 }, () => {

    /** Sends a message from the composer. */
    const send = async (page: Page, text: string) => {
      const box = page.getByRole("combobox", { name: "Message" });
      await box.fill(text);
      await box.press("Enter");
    };
    const lastTurn = (page: Page) => page.locator(".chat-turn").last();
    /** Waits until no run streams (after its last text is seen, the state is reloaded). */
    const idle = (page: Page) => page.getByText("The agent is answering…").waitFor({ state: "hidden" });

    it("streams an answer harmlessly, shows tool and sub-agent cards, skills offered and read, tokens", async () => {
      const { backend, browser } = shared();
      const tab: ConsoleTab = await openConsole(backend.url, { browser, path: "/" });
      const { page } = tab;
      try {
        await page.getByRole("heading", { name: "New thread" }).waitFor();
        await page.getByText("No threads yet").waitFor();
        await expectNoSeriousA11yViolations(page, "/ (new thread)");

        // Streamed: the answer's text is painted before the run's end (a streaming part appears).
        await page.evaluate(() => {
          const seen = { streaming: false };
          (window as unknown as { __seen: typeof seen }).__seen = seen;
          new MutationObserver(() => {
            if (document.querySelector(".chat-streaming")) seen.streaming = true;
          }).observe(document.body, { subtree: true, childList: true });
        });
        await send(page, "hello pelicans");
        await page.waitForURL(/\/threads\/[0-9a-f-]+$/);
        await lastTurn(page).getByText("done.", { exact: false }).waitFor();
        await idle(page);
        expect(await page.evaluate(() => (window as unknown as { __seen: { streaming: boolean } }).__seen.streaming)).toBe(true);
        const answer = lastTurn(page).locator(".chat-answer .markdown").first();
        expect(await answer.locator("strong").textContent()).toBe("Hello");
        // Raw HTML is text; the javascript: link has no href; nothing ran (a dialog would fail the tab).
        expect(await answer.textContent()).toContain("<img src=x onerror=alert(1)>");
        expect(await answer.locator("img").count()).toBe(0);
        expect(await answer.getByText("click").getAttribute("href")).toBeNull();
        // A bidi override shows as its escape instead of reversing the text after it.
        expect(await answer.textContent()).toContain("report\\u202Etxt.exe");
        // Compact listing offered the notes skill with the message.
        const facts = lastTurn(page).locator(".chat-facts");
        expect(await facts.textContent()).toContain("Skills offered");
        expect(await facts.locator("dd").nth(0).textContent()).toContain("notes");
        // The run's tokens, counted by the agent (the scripted model reports none).
        await expect.poll(() => facts.locator("dd").nth(2).textContent()).toMatch(/^[\d,]+ in, [\d,]+ out \(counted: the model reported none\)$/);
        await page.getByRole("navigation", { name: "Threads" }).getByRole("link", { name: "hello pelicans" }).waitFor();

        // A tool card: collapsed, its arguments and result as text.
        await send(page, "list /mnt/user-data");
        const card = lastTurn(page).locator(".tool-card");
        await card.locator(".card-status", { hasText: "done" }).waitFor();
        await card.locator("summary").click();
        expect(await card.locator("pre").first().textContent()).toContain('"path": "/mnt/user-data"');
        expect(await card.locator("pre").nth(1).textContent()).toMatch(/uploads|outputs|workspace/);

        // A sub-agent card with its own tool card nested, its answer, and its (counted) tokens.
        await idle(page);
        await send(page, "delegate");
        await lastTurn(page).getByText("The sub-agent is done.").waitFor();
        await idle(page);
        const subagent = lastTurn(page).locator(".subagent-card");
        const summary = subagent.locator("summary").first();
        expect(await summary.textContent()).toContain("general-purpose");
        expect(await summary.textContent()).toContain("Look at the files");
        await subagent.locator(".card-status", { hasText: "ok" }).waitFor();
        await summary.click();
        expect(await subagent.locator(".tool-card code").first().textContent()).toBe("ls");
        expect(await subagent.locator(".card-facts").textContent()).toMatch(/\d+ tokens in, \d+ out \(estimated\)/);
        expect(await lastTurn(page).locator(".chat-facts dd").nth(2).textContent()).toMatch(/sub-agents \d+ in, \d+ out \(estimated\)/);

        // A slash command completed from the list: a skill run as a command is a skill read.
        const box = page.getByRole("combobox", { name: "Message" });
        await box.fill("/no");
        await page.getByRole("option", { name: /\/notes/ }).waitFor();
        await box.press("Enter");
        expect(await box.inputValue()).toBe("/notes ");
        await box.pressSequentially("pelican");
        await box.press("Enter");
        await lastTurn(page).getByText("Ran the command.").waitFor();
        expect(await lastTurn(page).locator(".chat-human").textContent()).toContain("/notes pelican");
        expect(await lastTurn(page).locator(".chat-facts dd").nth(1).textContent()).toBe("notes");

        await expectNoSeriousA11yViolations(page, "a thread with cards");
        await page.emulateMedia({ colorScheme: "dark" });
        await expectNoSeriousA11yViolations(page, "a thread with cards, dark");
        await page.setViewportSize({ width: 360, height: 740 });
        await expectNoSeriousA11yViolations(page, "a thread at 360 px");
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      } finally {
        await tab.close();
      }
    });

    it("answers approvals and a question in place, uploads a file, downloads a presented one, follows and stops a run, renames, searches and deletes threads", async () => {
      const { backend, browser } = shared();
      const tab = await openConsole(backend.url, { browser, path: "/" });
      const { page } = tab;
      const newThread = async () => {
        await page.getByRole("link", { name: "New thread" }).click();
        await page.getByRole("heading", { name: "New thread" }).waitFor();
      };
      try {
        // Approved: the tool runs.
        await send(page, "stamp first");
        await page.getByRole("heading", { name: "Approval needed" }).waitFor();
        await expectNoSeriousA11yViolations(page, "an approval");
        await page.getByRole("button", { name: "Send decision" }).click();
        await lastTurn(page).getByText(/stamp said: .*"stamped": ?"first"/).waitFor();

        // Rejected with a message, in another thread (an approval holds for its thread).
        await newThread();
        await send(page, "stamp second");
        await page.getByRole("heading", { name: "Approval needed" }).waitFor();
        await page.getByRole("radio", { name: "Reject" }).check();
        await page.getByLabel("Message to the agent").fill("not today");
        await page.getByRole("button", { name: "Send decision" }).click();
        await lastTurn(page).locator(".markdown", { hasText: "Their message: not today" }).waitFor();
        expect(await lastTurn(page).locator(".tool-card .card-status").textContent()).toBe("error");

        // A question answered (sent once the last run is over: the composer ignores Enter while one runs).
        await idle(page);
        await send(page, "ask me");
        await page.locator(".pending-question", { hasText: "Which colour?" }).waitFor();
        await page.getByLabel("Your answer").fill("blue");
        await page.getByRole("button", { name: "Send answer" }).click();
        await lastTurn(page).getByText("Your colour is blue.").waitFor();

        // An upload, seen by the agent, and a presented file downloaded.
        await page.getByLabel("Files to attach").setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("pelicans\n") });
        await page.getByText("Uploaded notes.txt").waitFor();
        await page.getByRole("region", { name: "Files" }).getByRole("link", { name: "notes.txt" }).waitFor();
        await idle(page);
        await send(page, "list /mnt/user-data/uploads");
        await lastTurn(page).getByText(/Listed: .*notes\.txt/).waitFor();
        await idle(page);
        await send(page, "present it");
        await lastTurn(page).getByText("Here is your report.").waitFor();
        const link = page.getByRole("region", { name: "Files" }).getByRole("link", { name: "report.md" });
        const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
        expect(fs.readFileSync(await download.path(), "utf8")).toBe("# The report");

        // A run followed again after leaving its thread, then stopped.
        await newThread();
        await send(page, "wait here");
        await page.getByRole("button", { name: "Send decision" }).click();
        await lastTurn(page).locator(".tool-card .card-status", { hasText: "running" }).waitFor();
        await newThread();
        await page.getByRole("navigation", { name: "Threads" }).getByRole("link", { name: "wait here" }).click();
        await page.getByText("The agent is answering…").waitFor();
        await page.getByRole("button", { name: "Stop" }).click();
        await idle(page);
        await expect.poll(() => lastTurn(page).locator(".tool-card .card-status").textContent()).not.toBe("running");

        // Rename, search, delete.
        const list = page.getByRole("navigation", { name: "Threads" });
        await page.getByRole("navigation", { name: "Threads" }).getByRole("link", { name: "stamp second" }).click();
        await list.getByRole("button", { name: "Rename stamp second" }).click();
        await list.getByLabel("New title").fill("Renamed thread");
        await list.getByRole("button", { name: "Save" }).click();
        await list.getByRole("link", { name: "Renamed thread" }).waitFor();
        await list.getByLabel("Search threads").fill("renamed");
        await expect.poll(() => list.getByRole("listitem").count()).toBe(1);
        await list.getByRole("button", { name: "Delete Renamed thread" }).click();
        await list.getByRole("button", { name: "Confirm deleting Renamed thread" }).click();
        await page.waitForURL(`${backend.gatewayUrl}/`);
        await list.getByText("No thread title matches that search.").waitFor();
      } finally {
        await tab.close();
      }
    });
  });
}

// The chat's streaming latency (issue 31): from the first streamed token of an answer reaching the
// page (its first `messages` SSE chunk, read from the run's stream as it arrives) to that text
// painted (the first animation frame after the answer's text is in the document, streamed or
// whole, plus the task after it, when the frame has been presented). Headless Chromium against
// the real gateway and agent server on loopback (the agent API through the gateway's /agent proxy), the scripted chat
// model, one answer per sample in one thread. Baseline in the same run and page: a plain text node
// added to the document to its paint, the floor any streamed text pays here (one frame).
// Not included: the agent-to-page hop (the gateway's proxy on loopback); the figure is the page's
// own share, parsing the event, React's update, Markdown and sanitising, layout and paint.
import { browserPath } from "@thinktank/testing";
import type { Page } from "playwright-core";
import { startConsoleBackend } from "../apps/console/test/support/console-backend.js";
import { launchBrowser } from "../apps/console/test/support/console-browser.js";
import { round, summarize } from "./harness.js";
import type { Benchmark, Measurement } from "./harness.js";

const samples = 30;
const warmup = 3;
const reply = Array.from({ length: 60 }, (_, index) => `word${index}`).join(" ");
const script = `
rules:
  - when: { last_human: "^go" }
    reply: "${reply}"
fallback:
  reply: "ok"
`;

// Run in the page before its scripts (CDP, so the page's CSP does not apply): the run stream's body
// is teed, and the time its first `messages` event arrives is kept; a MutationObserver keeps the
// time the first streamed text appears and its paint (rAF, then a task).
const probe = `(() => {
  const marks = { received: [], painted: [], floor: [] };
  window.__chatMarks = marks;
  const original = window.fetch.bind(window);
  window.fetch = async (...args) => {
    const response = await original(...args);
    const url = String(args[0] && args[0].url ? args[0].url : args[0]);
    if (!url.includes("/runs/stream") || !response.body) return response;
    const [kept, watched] = response.body.tee();
    (async () => {
      const reader = watched.getReader();
      const decoder = new TextDecoder();
      let seen = false;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (!seen && decoder.decode(value, { stream: true }).includes("event: messages")) {
          seen = true;
          marks.received.push(performance.now());
        }
      }
    })();
    return new Response(kept, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  const afterPaint = (list) => requestAnimationFrame(() => { const channel = new MessageChannel(); channel.port1.onmessage = () => list.push(performance.now()); channel.port2.postMessage(0); });
  // The answer's text in the document, streamed or whole (a fast stream may be rendered once, whole).
  let shown = 0;
  new MutationObserver(() => {
    const now = document.querySelectorAll(".chat-answer .markdown").length;
    if (now > shown) afterPaint(marks.painted);
    shown = now;
  }).observe(document, { subtree: true, childList: true });
  window.__floor = () => { const started = performance.now(); const node = document.createElement("p"); node.textContent = "floor " + started; document.body.append(node); afterPaint(marks.floor); return started; };
})();`;

const marks = (page: Page) => page.evaluate("window.__chatMarks") as Promise<{ received: number[]; painted: number[]; floor: number[] }>;

const benchmark: Benchmark = {
  title: "Web console: chat, first streamed token to its paint",
  issue: 31,
  async run(context) {
    if (!browserPath()) {
      context.log("no Chromium (apt-get install chromium, or THINKTANK_TEST_BROWSER): skipped");
      return [];
    }
    context.log("starting the gateway and the agent server (the console built when stale)");
    const [backend, browser] = await Promise.all([startConsoleBackend({ script }), launchBrowser()]);
    try {
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
      await page.addInitScript(probe);
      await page.goto(backend.url);
      const box = page.locator("form.chat-composer textarea");
      // Functions, not strings: a string is evaluated with eval, which the console's CSP refuses.
      const answered = async (count: number) =>
        page.waitForFunction(
          (wanted: number) => {
            const document = (globalThis as unknown as { document: { querySelector(selector: string): unknown; querySelectorAll(selector: string): { length: number } } }).document;
            return document.querySelectorAll(".chat-turn").length >= wanted && !document.querySelector(".chat-streaming") && !document.querySelector(".chat-status:not(:empty)");
          },
          count,
          { timeout: 30_000 },
        );
      const tokenToPaint: number[] = [];
      const floor: number[] = [];
      context.log(`${warmup} warm-up answers, then ${samples}, one thread`);
      for (let index = 0; index < warmup + samples; index++) {
        const before = await marks(page);
        await box.fill(`go ${index}`);
        await box.press("Enter");
        if (index === 0) await page.waitForURL(/\/threads\//);
        await answered(index + 1);
        const after = await marks(page);
        const received = after.received[before.received.length];
        const painted = after.painted[before.painted.length];
        if (received === undefined || painted === undefined) throw new Error(`answer ${index}: no streamed token seen (received ${received}, painted ${painted})`);
        const started = (await page.evaluate("window.__floor()")) as number;
        await page.waitForFunction((seen: number) => (globalThis as unknown as { __chatMarks: { floor: number[] } }).__chatMarks.floor.length > seen, before.floor.length);
        const floorPaint = (await marks(page)).floor[before.floor.length] as number;
        if (index >= warmup) {
          tokenToPaint.push(painted - received);
          floor.push(floorPaint - started);
        }
      }
      const chat = summarize(tokenToPaint);
      const base = summarize(floor);
      context.log(`first token to paint p50 ${chat.median.toFixed(1)} ms (floor ${base.median.toFixed(1)} ms)`);
      const results: Measurement[] = [
        {
          name: "first streamed token received by the page to its paint (scripted model, loopback)",
          value: round(chat.median, 1),
          unit: "ms p50",
          stats: { p95: round(chat.p95, 1), min: round(chat.min, 1), max: round(chat.max, 1), answers: chat.samples },
          baseline: { name: "a text node added to the same page to its paint", value: round(base.median, 1), unit: "ms p50" },
        },
      ];
      return results;
    } finally {
      await browser.close();
      await backend.close();
    }
  },
};

export default benchmark;

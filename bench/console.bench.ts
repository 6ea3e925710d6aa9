// The web console's first page (issue 31): the JavaScript the browser loads for `/`, gzipped, and
// the time from navigation to interactive (the chat's message box usable: key-less loopback, so the
// local administrator's chat is the first page), each load in a fresh browser context (no cache),
// headless Chromium against the real gateway and agent server on loopback. Baselines in the same
// run: the gateway's own /docs page (Swagger UI) to its title shown, and /healthz (a bare document)
// to its load event, the floor of a navigation here; /docs's JavaScript beside the console's.
import zlib from "node:zlib";
import { browserPath } from "@thinktank/testing";
import type { Browser, Page } from "playwright-core";
import { startConsoleBackend } from "../apps/console/test/support/console-backend.js";
import { launchBrowser } from "../apps/console/test/support/console-browser.js";
import { round, summarize } from "./harness.js";
import type { Benchmark, Measurement } from "./harness.js";

const loads = 15;
const warmup = 2;
/** The first page is interactive once one of these is usable: the chat's message box, or the sign-in key field. */
const interactive = "form.chat-composer textarea:not([disabled]), #api-key:not([disabled])";

interface Load {
  /** ms from navigation start (performance.timeOrigin) to the condition, measured in the page. */
  readonly ms: number;
  /** The scripts the page loaded: URL and body bytes. */
  readonly scripts: { url: string; bytes: Buffer }[];
}

/** One load of `url` in a fresh context: waits until `ready` returns true, read on each animation frame. */
async function load(browser: Browser, url: string, ready: (page: Page) => Promise<number>): Promise<Load> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    const pending: Promise<{ url: string; bytes: Buffer } | undefined>[] = [];
    page.on("response", (response) => {
      if (response.request().resourceType() === "script") pending.push(response.body().then((bytes) => ({ url: response.url(), bytes }), () => undefined));
    });
    await page.goto(url, { waitUntil: "commit" });
    const ms = await ready(page);
    // Whatever the page fetched by then (lazy chunks included) counts as shipped for it.
    await page.waitForLoadState("networkidle");
    const scripts = (await Promise.all(pending)).filter((script): script is { url: string; bytes: Buffer } => script !== undefined);
    return { ms, scripts };
  } finally {
    await context.close();
  }
}

/** What the in-page check reads (this file is typechecked without the DOM's types). */
interface PageGlobals {
  readonly document: { querySelector(selector: string): { checkVisibility(): boolean } | null };
  readonly performance: { now(): number };
}

/** performance.now() (ms since navigation start) on the first animation frame where `selector` matches a visible element. */
async function untilVisible(page: Page, selector: string): Promise<number> {
  // A function, not a string: the console's CSP has no 'unsafe-eval', which a string would need.
  const handle = await page.waitForFunction(
    (wanted) => {
      const { document, performance } = globalThis as unknown as PageGlobals;
      const element = document.querySelector(wanted);
      return element?.checkVisibility() ? performance.now() : false;
    },
    selector,
    { polling: "raf", timeout: 90_000 },
  );
  return (await handle.jsonValue()) as number;
}

async function untilLoaded(page: Page): Promise<number> {
  await page.waitForLoadState("load");
  return (await page.evaluate(`performance.getEntriesByType("navigation")[0].loadEventEnd`)) as number;
}

function gzipped(scripts: readonly { bytes: Buffer }[]): { raw: number; gzip: number } {
  return scripts.reduce((sum, script) => ({ raw: sum.raw + script.bytes.length, gzip: sum.gzip + zlib.gzipSync(script.bytes, { level: 9 }).length }), { raw: 0, gzip: 0 });
}

const benchmark: Benchmark = {
  title: "Web console: JavaScript for the first page, and first load to interactive",
  issue: 31,
  async run(context) {
    if (!browserPath()) {
      context.log("no Chromium (apt-get install chromium, or THINKTANK_TEST_BROWSER): skipped");
      return [];
    }
    context.log("starting the gateway and the agent server (the console built when stale)");
    const [backend, browser] = await Promise.all([startConsoleBackend(), launchBrowser()]);
    try {
      const targets = {
        console: { url: backend.url, ready: (page: Page) => untilVisible(page, interactive) },
        docs: { url: `${backend.gatewayUrl}/docs`, ready: (page: Page) => untilVisible(page, ".swagger-ui .info .title") },
        healthz: { url: `${backend.gatewayUrl}/healthz`, ready: untilLoaded },
      };
      const times: Record<keyof typeof targets, number[]> = { console: [], docs: [], healthz: [] };
      let firstConsole: Load | undefined;
      let firstDocs: Load | undefined;
      context.log(`${warmup} warm-up loads each, then ${loads} each, interleaved, every load in a fresh context`);
      for (let pass = 0; pass < warmup + loads; pass++) {
        for (const name of Object.keys(targets) as (keyof typeof targets)[]) {
          const result = await load(browser, targets[name].url, targets[name].ready);
          if (name === "console") firstConsole ??= result;
          if (name === "docs") firstDocs ??= result;
          if (pass >= warmup) times[name].push(result.ms);
        }
      }
      const shipped = gzipped(firstConsole?.scripts ?? []);
      const docsShipped = gzipped(firstDocs?.scripts ?? []);
      const consoleTimes = summarize(times.console);
      const docsTimes = summarize(times.docs);
      const healthTimes = summarize(times.healthz);
      context.log(`console: ${(shipped.gzip / 1024).toFixed(1)} KB gzipped in ${firstConsole?.scripts.length} scripts; interactive p50 ${consoleTimes.median.toFixed(0)} ms`);
      const results: Measurement[] = [
        {
          name: "JavaScript loaded for `/`, gzipped (level 9)",
          value: round(shipped.gzip / 1024, 1),
          unit: "KB",
          stats: { raw: `${round(shipped.raw / 1024, 1)} KB`, scripts: firstConsole?.scripts.length ?? 0 },
          baseline: { name: "the gateway's /docs (Swagger UI)", value: round(docsShipped.gzip / 1024, 1), unit: "KB" },
          target: "<= 250 KB",
          pass: shipped.gzip <= 250 * 1024,
        },
        {
          name: "first load to interactive (the chat's message box usable), loopback, fresh context",
          value: round(consoleTimes.median, 0),
          unit: "ms p50",
          stats: { p95: round(consoleTimes.p95, 0), min: round(consoleTimes.min, 0), max: round(consoleTimes.max, 0), loads: consoleTimes.samples },
          baseline: { name: "/docs to its title shown", value: round(docsTimes.median, 0), unit: "ms p50" },
          target: "p50 <= 1 s",
          pass: consoleTimes.median <= 1000,
        },
        {
          name: "/healthz to its load event (a navigation's floor here)",
          value: round(healthTimes.median, 0),
          unit: "ms p50",
          stats: { p95: round(healthTimes.p95, 0), loads: healthTimes.samples },
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

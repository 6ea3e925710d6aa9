import fs from "node:fs";
import { createRequire } from "node:module";
import { browserPath } from "@thinktank/testing";
import type { Browser, BrowserContext, Page } from "playwright-core";

/** Something that went wrong in the page: an uncaught error, a console error, a CSP violation, a failed load. */
export interface PageProblem {
  readonly kind: "pageerror" | "console" | "csp" | "request" | "dialog";
  readonly text: string;
}

export interface OpenConsoleOptions {
  /** A browser to open the context in (one per test file saves a launch per test); else one of its own, closed with the context. */
  readonly browser?: Browser;
  /** prefers-color-scheme. @default "light" */
  readonly colorScheme?: "light" | "dark";
  /** @default 1280 x 800 */
  readonly viewport?: { readonly width: number; readonly height: number };
  /** Sign in with this API key first (POST /api/session in the context, so the page has the session cookie). @default none */
  readonly apiKey?: string;
  /** Where to go. @default the url given, else nowhere */
  readonly path?: string;
}

export interface ConsoleTab {
  readonly browser: Browser;
  readonly context: BrowserContext;
  readonly page: Page;
  /** What went wrong so far (see PageProblem), minus what `allow` excuses. */
  readonly problems: PageProblem[];
  /** Excuses problems whose text matches (a CSP violation a hostile payload provokes, say). */
  allow(pattern: RegExp): void;
  /** Throws, listing them, when there are problems; then forgets them. */
  expectNoProblems(): void;
  /** Closes the context (and the browser when it is its own); throws when problems were left unchecked. */
  close(): Promise<void>;
}

/** Chromium (Debian's, through playwright-core) without its own sandbox: root (CI) cannot use it, and the pages are local test pages. */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = browserPath();
  if (!executablePath) throw new Error("no Chromium: guard the suite with needs(\"browser\")");
  const { chromium } = await import("playwright-core");
  return chromium.launch({ executablePath, args: ["--no-sandbox"] });
}

/**
 * A new browser context on the console at `url` (the backend's console URL), with a collector of
 * problems: uncaught page errors, console errors, CSP violations (the `securitypolicyviolation`
 * event), requests that failed or answered 5xx, assets that answered 404, and any dialog (none
 * of the console's pages opens one: a dialog is a script a payload ran; it is dismissed). Answers
 * 4xx from the APIs are not problems: pages show them through ErrorNote.
 */
export async function openConsole(url: string, options: OpenConsoleOptions = {}): Promise<ConsoleTab> {
  const browser = options.browser ?? (await launchBrowser());
  const context = await browser.newContext({ colorScheme: options.colorScheme ?? "light", viewport: options.viewport ?? { width: 1280, height: 800 } });
  const problems: PageProblem[] = [];
  const allowed: RegExp[] = [];
  const note = (problem: PageProblem) => {
    if (!allowed.some((pattern) => pattern.test(problem.text))) problems.push(problem);
  };
  await context.exposeBinding("__thinktankTestCsp", (_source, text: string) => note({ kind: "csp", text }));
  await context.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      const report = (window as unknown as { __thinktankTestCsp: (text: string) => void }).__thinktankTestCsp;
      void report(`${event.effectiveDirective} blocked ${event.blockedURI || "(inline)"} at ${event.sourceFile}:${event.lineNumber} ${event.sample}`);
    });
  });
  const watch = (page: Page) => {
    page.on("pageerror", (error) => note({ kind: "pageerror", text: `${error.name}: ${error.message}` }));
    page.on("console", (message) => {
      // A fetch the API answered 4xx logs "Failed to load resource": the response handler below judges those.
      if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) note({ kind: "console", text: message.text() });
    });
    page.on("requestfailed", (request) => {
      const failure = request.failure()?.errorText ?? "";
      // Aborted: a navigation or a stream the page closed on purpose.
      if (!failure.includes("ERR_ABORTED")) note({ kind: "request", text: `${request.method()} ${request.url()}: ${failure}` });
    });
    page.on("response", (response) => {
      const status = response.status();
      if (status >= 500 || (status === 404 && new URL(response.url()).pathname.startsWith("/assets/"))) note({ kind: "request", text: `${response.request().method()} ${response.url()}: ${status}` });
    });
    page.on("dialog", (dialog) => {
      note({ kind: "dialog", text: `${dialog.type()}: ${dialog.message()}` });
      void dialog.dismiss();
    });
  };
  context.on("page", watch);
  if (options.apiKey) {
    const signedIn = await context.request.post(new URL("/api/session", url).href, { data: { api_key: options.apiKey } });
    if (!signedIn.ok()) throw new Error(`signing in with the key: ${signedIn.status()} ${await signedIn.text()}`);
  }
  const page = await context.newPage();
  if (options.path !== undefined) await page.goto(new URL(options.path, url).href);
  let closed = false;
  const tab: ConsoleTab = {
    browser,
    context,
    page,
    problems,
    allow: (pattern) => {
      allowed.push(pattern);
    },
    expectNoProblems: () => {
      const found = problems.splice(0);
      if (found.length > 0) throw new Error(`the page had ${found.length} problem(s):\n${found.map((problem) => `- ${problem.kind}: ${problem.text}`).join("\n")}`);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await context.close();
      if (!options.browser) await browser.close();
      tab.expectNoProblems();
    },
  };
  return tab;
}

interface AxeViolation {
  id: string;
  impact?: string | null;
  help: string;
  helpUrl: string;
  nodes: { target: unknown[]; html: string; failureSummary?: string }[];
}

let axeSource: string | undefined;

/**
 * Runs axe-core (from node_modules, evaluated in the page: CDP evaluation is not subject to the
 * page's CSP) on the whole document and throws, listing them, when there are serious or critical
 * violations. `what` names the page in the message; `rules` runs only those axe rules (say
 * ["color-contrast"] again in dark, where nothing else changes). @default every rule
 */
export async function expectNoSeriousA11yViolations(page: Page, what = page.url(), rules?: readonly string[]): Promise<void> {
  axeSource ??= fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  if (!(await page.evaluate("typeof window.axe === 'object'"))) await page.evaluate(axeSource);
  const options = JSON.stringify({ resultTypes: ["violations"], ...(rules ? { runOnly: { type: "rule", values: rules } } : {}) });
  const violations = (await page.evaluate(`window.axe.run(document, ${options}).then((results) => results.violations)`)) as AxeViolation[];
  const serious = violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
  if (serious.length === 0) return;
  const lines = serious.map(
    (violation) =>
      `- ${violation.impact} ${violation.id}: ${violation.help} (${violation.helpUrl})\n${violation.nodes
        .slice(0, 5)
        .map((node) => `    ${JSON.stringify(node.target)} ${node.html.slice(0, 160)}${node.failureSummary ? `\n      ${node.failureSummary.replace(/\n/g, "\n      ")}` : ""}`)
        .join("\n")}`,
  );
  throw new Error(`axe-core: ${serious.length} serious or critical violation(s) on ${what}:\n${lines.join("\n")}`);
}

// Issue 26: a file the model wrote can never run script on the API's origin. An HTML output with a
// script, opened from its download URL in a real headless Chromium (Debian's `chromium`, driven by
// playwright-core, as the gateway's sign-in test does): it downloads instead of rendering; and were
// a browser to render it anyway (the Content-Disposition stripped on the way), CSP sandbox keeps its
// script from running (its document has an opaque origin: the API origin's storage stays untouched).
// A control without the headers shows the script does run and write there, so the test can fail.
import fs from "node:fs";
import path from "node:path";
import { browserPath, needs } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFilesServer, type FilesServer } from "./support/files-server.js";

describe("an HTML output in a real browser", { ...needs("browser"), timeout: 90_000 }, () => {
  let files: FilesServer;

  beforeAll(async () => {
    files = await startFilesServer({});
  }, 60_000);
  afterAll(async () => files?.close());

  it("downloads it, and its script never runs on the API's origin", async () => {
    const thread = await files.thread(files.alice);
    const outputs = files.server.files.folders(thread).outputs;
    fs.mkdirSync(outputs, { recursive: true });
    fs.writeFileSync(
      path.join(outputs, "page.html"),
      `<html><head><title>untouched</title></head><body><script>
        document.title = "ran:" + window.origin;
        localStorage.setItem("stolen", "yes");
      </script></body></html>`,
    );
    const url = `${files.url}/threads/${thread}/files/outputs/page.html`;

    const { chromium } = await import("playwright-core");
    // Root (CI) cannot use Chromium's own sandbox; the pages are local test pages.
    const browser = await chromium.launch({ executablePath: browserPath() as string, args: ["--no-sandbox"] });
    try {
      const context = await browser.newContext({ extraHTTPHeaders: { "x-api-key": files.alice }, acceptDownloads: true });
      /** What the script would have left in the API origin's storage. */
      const stolen = async () => {
        const probe = await context.newPage();
        await probe.goto(`${files.url}/healthz`);
        const value = await probe.evaluate("localStorage.getItem('stolen')");
        await probe.close();
        return value;
      };

      // 1. As served: an attachment, so the browser saves it and renders nothing.
      const page = await context.newPage();
      const download = page.waitForEvent("download");
      await page.goto(url).catch(() => undefined);
      expect((await download).suggestedFilename()).toBe("page.html");

      // 2. Rendered anyway (the attachment header stripped on the way): CSP sandbox, no script.
      const rendered = await context.newPage();
      await rendered.route(url, async (route) => {
        const response = await route.fetch();
        const { "content-disposition": _dropped, ...headers } = response.headers();
        await route.fulfill({ response, headers });
      });
      await rendered.goto(url);
      await rendered.waitForLoadState("load");
      expect(await rendered.title()).toBe("untouched");
      // The document has an opaque origin: nothing of the API's origin (its storage, its cookies) is reachable.
      expect(await rendered.evaluate("window.origin")).toBe("null");
      expect(await stolen()).toBeNull();

      // 3. The control: without the safety headers the same file's script runs on the API's origin.
      const control = await context.newPage();
      await control.route(url, async (route) => {
        const response = await route.fetch();
        const { "content-disposition": _disposition, "content-security-policy": _policy, ...headers } = response.headers();
        await route.fulfill({ response, headers });
      });
      await control.goto(url);
      await control.waitForFunction("document.title.startsWith('ran:')");
      expect(await control.title()).toBe(`ran:${files.url}`);
      expect(await stolen()).toBe("yes");
    } finally {
      await browser.close();
    }
  });
});

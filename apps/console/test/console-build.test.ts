// What `npm test` covers of the console without a browser: the real build (made when stale) has an
// index.html with no inline script or style (the CSP allows neither), whose every asset exists under
// a hashed name; the gateway serves it at / and at client-side routes with the CSP and no-cache, and
// each asset it names immutable for a year.
import fs from "node:fs";
import path from "node:path";
import { createLogger, loadConfig } from "@thinktank/core";
import { buildApp, createGatewayDeps } from "@thinktank/gateway";
import { makeTempDir } from "@thinktank/testing";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleAppDir, ensureConsoleBuilt } from "./support/console-build.js";

/** The tags of an HTML text (name and attribute text), with what each script element holds. */
function scripts(html: string): { attributes: string; body: string }[] {
  return [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)].map((match) => ({ attributes: match[1] ?? "", body: match[2] ?? "" }));
}

/** The /assets/ URLs index.html names (scripts, styles, preloads). */
function assetUrls(html: string): string[] {
  return [...html.matchAll(/\b(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1] as string);
}

describe("the console's build, served by the gateway", () => {
  let html: string;
  let app: FastifyInstance;
  let cleanup: () => void;

  beforeAll(async () => {
    await ensureConsoleBuilt();
    html = fs.readFileSync(path.join(consoleAppDir, "index.html"), "utf8");
    const temp = makeTempDir("tt-console-build-");
    cleanup = temp.cleanup;
    fs.writeFileSync(path.join(temp.dir, "extensions_config.json"), '{"mcpServers": {}, "skills": {}, "plugins": {}, "tools": {}}\n');
    fs.writeFileSync(path.join(temp.dir, "config.yaml"), "log:\n  level: silent\n");
    const config = loadConfig({ cwd: temp.dir, env: {} });
    app = buildApp(config, createGatewayDeps(config, { logger: createLogger({ level: "silent" }), consoleDir: consoleAppDir }));
    await app.ready();
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    cleanup?.();
  });

  it("has an index.html without inline script or style, naming hashed assets that exist", () => {
    const found = scripts(html);
    expect(found.length).toBeGreaterThan(0);
    for (const script of found) {
      expect(script.attributes, "every script is a file").toMatch(/\bsrc="\/assets\//);
      expect(script.body.trim(), "no inline script").toBe("");
    }
    expect(html).not.toMatch(/<style\b/i);
    expect(html).not.toMatch(/\sstyle\s*=/i);
    expect(html).not.toMatch(/\son[a-z]+\s*=/i);
    const assets = assetUrls(html);
    expect(assets.some((url) => url.endsWith(".js"))).toBe(true);
    for (const url of assets) {
      expect(url, "a hashed name").toMatch(/-[A-Za-z0-9_-]{8,}\.(js|css)$/);
      expect(fs.existsSync(path.join(consoleAppDir, url)), url).toBe(true);
    }
  });

  it("is served at / and at a client-side route with the CSP, nosniff, no-referrer and no-cache", async () => {
    for (const url of ["/", "/skills/some-skill"]) {
      const response = await app.inject({ method: "GET", url, headers: { accept: "text/html" } });
      expect(response.statusCode, url).toBe(200);
      expect(response.body).toBe(html);
      expect(response.headers["cache-control"]).toBe("no-cache");
      const csp = String(response.headers["content-security-policy"]);
      expect(csp).toMatch(/(^|; )default-src 'self'(;|$)/);
      expect(csp).toMatch(/(^|; )script-src 'self'(;|$)/);
      expect(csp).toMatch(/(^|; )style-src 'self'(;|$)/);
      expect(csp).toMatch(/(^|; )object-src 'none'(;|$)/);
      expect(csp).toMatch(/(^|; )frame-ancestors 'none'(;|$)/);
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
      expect(response.headers["x-content-type-options"]).toBe("nosniff");
      expect(response.headers["referrer-policy"]).toBe("no-referrer");
    }
  });

  it("serves every asset index.html names immutable for a year, with the right type", async () => {
    for (const url of assetUrls(html)) {
      const response = await app.inject({ method: "GET", url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers["cache-control"], url).toBe("public, max-age=31536000, immutable");
      expect(String(response.headers["content-type"]), url).toMatch(url.endsWith(".js") ? /javascript/ : /text\/css/);
      expect(response.rawPayload.equals(fs.readFileSync(path.join(consoleAppDir, url))), url).toBe(true);
    }
  });
});

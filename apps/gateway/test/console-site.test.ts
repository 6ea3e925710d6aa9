import fs from "node:fs";
import path from "node:path";
import { createLogger, loadConfig } from "@thinktank/core";
import { freePort, makeTempDir, rawHttpRequest } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createGatewayDeps } from "../src/gateway-deps.js";
import { startGateway, type RunningGateway } from "../src/start-gateway.js";

// The console at / (docs/console.md, "One origin" and "Headers"), over a real port and a built console of our own.

let running: RunningGateway | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await running?.close();
  running = undefined;
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const indexHtml = '<!doctype html><html lang="en"><head><script type="module" src="/assets/index-AbC123.js"></script></head><body><div id="root"></div></body></html>';

function builtConsole(): string {
  const { dir, cleanup } = makeTempDir("tt-console-dist-");
  cleanups.push(cleanup);
  fs.mkdirSync(path.join(dir, "assets"));
  fs.writeFileSync(path.join(dir, "index.html"), indexHtml);
  fs.writeFileSync(path.join(dir, "assets", "index-AbC123.js"), "console.log('app');\n");
  return dir;
}

async function start(consoleDir: string, configYaml = "log:\n  level: silent\n"): Promise<RunningGateway> {
  const { dir, cleanup } = makeTempDir("tt-gw-console-");
  cleanups.push(cleanup);
  fs.writeFileSync(path.join(dir, "extensions_config.json"), '{"mcpServers": {}, "skills": {}, "plugins": {}, "tools": {}}\n');
  fs.writeFileSync(path.join(dir, "config.yaml"), configYaml);
  const config = loadConfig({ cwd: dir, env: { GATEWAY_PORT: String(await freePort()) } });
  running = await startGateway(config, createGatewayDeps(config, { logger: createLogger({ level: "silent" }), consoleDir }));
  return running;
}

const html = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };

function expectConsoleHeaders(response: Response): void {
  const csp = response.headers.get("content-security-policy") ?? "";
  expect(csp).toContain("default-src 'self'");
  expect(csp).toContain("script-src 'self';");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain("unsafe-inline");
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  expect(response.headers.get("referrer-policy")).toBe("no-referrer");
}

describe("the console at /", () => {
  it("serves index.html at / and at client-side routes, no-cache, with the CSP", async () => {
    const gateway = await start(builtConsole());
    for (const route of ["/", "/skills", "/plugins/x%20y", "/threads/abc?x=1"]) {
      const response = await fetch(`${gateway.url}${route}`, { headers: route === "/" ? {} : html });
      expect(response.status, route).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
      expect(response.headers.get("cache-control")).toBe("no-cache");
      expectConsoleHeaders(response);
      expect(await response.text()).toBe(indexHtml);
    }
  });

  it("serves hashed assets immutable for a year, and 404s a missing one", async () => {
    const gateway = await start(builtConsole());
    const asset = await fetch(`${gateway.url}/assets/index-AbC123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(asset.headers.get("content-type")).toMatch(/javascript/);
    expectConsoleHeaders(asset);
    const missing = await fetch(`${gateway.url}/assets/nope.js`, { headers: html });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { code: string }).code).toBe("NOT_FOUND");
    const traversal = await fetch(`${gateway.url}/assets/..%2f..%2findex.html`);
    expect([400, 403, 404]).toContain(traversal.status);
  });

  it("keeps the APIs' own 404s: unknown /api, /agent-less and non-HTML requests are not the console", async () => {
    const gateway = await start(builtConsole());
    for (const route of ["/api/nope", "/docs/nope", "/healthz/x", "/mcp"]) {
      const response = await fetch(`${gateway.url}${route}`, { headers: html });
      expect(response.status, route).toBe(404);
      expect(((await response.json()) as { code: string }).code).toBe("NOT_FOUND");
    }
    // An API client (Accept: */* or JSON) gets the JSON 404 for an unknown path, not the page.
    const api = await fetch(`${gateway.url}/skills`, { headers: { accept: "*/*" } });
    expect(api.status).toBe(404);
    const post = await fetch(`${gateway.url}/skills`, { method: "POST", headers: html });
    expect(post.status).toBe(404);
  });

  it("answers 503 CONSOLE_NOT_BUILT when there is no build, and serves a build made later", async () => {
    const { dir, cleanup } = makeTempDir("tt-console-empty-");
    cleanups.push(cleanup);
    const gateway = await start(dir);
    const response = await fetch(`${gateway.url}/`);
    expect(response.status).toBe(503);
    const body = (await response.json()) as { code: string; message: string };
    expect(body.code).toBe("CONSOLE_NOT_BUILT");
    expect(body.message).toContain("npm run build");
    expect((await fetch(`${gateway.url}/skills`, { headers: html })).status).toBe(503);
    fs.writeFileSync(path.join(dir, "index.html"), indexHtml);
    expect((await fetch(`${gateway.url}/`)).status).toBe(200);
  });

  it("applies the Host check to the console (DNS rebinding)", async () => {
    const gateway = await start(builtConsole());
    const answer = await rawHttpRequest(new URL("/", gateway.url), "GET", { host: "evil.example:8001", accept: "text/html" });
    expect(answer.status).toBe(403);
    expect(answer.body.code).toBe("HOST_NOT_ALLOWED");
  });

  it("answers 503 SERVICE_UNAVAILABLE under /agent when the agent server is not there", async () => {
    const port = await freePort();
    const gateway = await start(builtConsole(), `log:\n  level: silent\nconsole:\n  agent_url: http://127.0.0.1:${port}\n`);
    const response = await fetch(`${gateway.url}/agent/ok`);
    expect(response.status).toBe(503);
    const body = (await response.json()) as { code: string; message: string };
    expect(body.code).toBe("SERVICE_UNAVAILABLE");
    expect(body.message).toContain(`http://127.0.0.1:${port}`);
  });

  it("serves nothing at / with console.enabled: false", async () => {
    const gateway = await start(builtConsole(), "log:\n  level: silent\nconsole:\n  enabled: false\n");
    expect((await fetch(`${gateway.url}/`, { headers: html })).status).toBe(404);
    expect((await fetch(`${gateway.url}/assets/index-AbC123.js`)).status).toBe(404);
  });
});

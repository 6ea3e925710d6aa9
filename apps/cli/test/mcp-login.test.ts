import fs from "node:fs";
import path from "node:path";
import { PassThrough, Writable } from "node:stream";
import { startOAuthTestServer } from "@thinktank/mcp/testing";
import type { OAuthTestServer } from "@thinktank/mcp/testing";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../src/run-cli.js";
import { runCaptured } from "./support/run-captured.js";

// `thinktank mcp login|logout` and `mcp list` against a real authorization server and protected MCP server.
let temp: { dir: string; cleanup: () => void };
let server: OAuthTestServer;

beforeEach(async () => {
  temp = makeTempDir("tt-cli-login-");
  server = await startOAuthTestServer();
  const servers = { crm: { type: "http", url: server.mcpUrl }, legacy: { type: "sse", url: server.sseUrl } };
  fs.writeFileSync(path.join(temp.dir, "extensions_config.json"), JSON.stringify({ mcpServers: servers, skills: {}, plugins: {}, tools: {} }));
});
afterEach(async () => {
  await server.close();
  temp.cleanup();
});

const env = () => ({ PATH: process.env.PATH, HOME: process.env.HOME });

/** Runs `thinktank mcp login SERVER` while reading its output as it comes, so the test can open the URL it prints. */
function login(serverName: string): { output: () => string; done: Promise<number> } {
  let text = "";
  const stdout = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  const stdin = new PassThrough();
  stdin.end();
  const done = runCli(["mcp", "login", serverName], { stdout, stderr: stdout, stdin, env: env(), cwd: temp.dir });
  return { output: () => text, done };
}

describe("thinktank mcp login / logout", () => {
  it("mcp list shows who needs sign-in; login prints the URL, takes the loopback callback and stores the tokens; logout revokes them", async () => {
    const before = await runCaptured(["mcp", "list"], { cwd: temp.dir, env: env() });
    const rows = before.stdout.trimEnd().split("\n").slice(1).map((line) => line.split(/\s{2,}/).slice(0, 3));
    expect(rows).toEqual([
      ["crm", "http", "needs auth"],
      ["legacy", "sse", "needs auth"],
    ]);
    expect(before.stdout).toContain("thinktank mcp login crm");

    const run = login("crm");
    await expect.poll(() => /https?:\/\/\S+/.exec(run.output())?.[0], { timeout: 20_000 }).toBeDefined();
    const authorizationUrl = /https?:\/\/\S+/.exec(run.output())?.[0] as string;
    const callback = await server.approve(authorizationUrl);
    expect(callback).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
    const page = await fetch(callback);
    expect(await page.text()).toContain("Connected to <strong>crm</strong>");
    expect(await run.done).toBe(0);
    expect(run.output()).toContain("Signed in to crm (scopes: mcp).");

    const call = await runCaptured(["mcp", "call", "crm.add", "--args", '{"a":20,"b":22}', "--json"], { cwd: temp.dir, env: env() });
    expect(call.code).toBe(0);
    expect(call.stdout).toContain("42");
    const after = await runCaptured(["mcp", "list", "--json"], { cwd: temp.dir, env: env() });
    expect((JSON.parse(after.stdout) as { servers: { name: string; state: string }[] }).servers.map((s) => [s.name, s.state])).toEqual([
      ["crm", "connected"],
      ["legacy", "needs_auth"],
    ]);

    const logout = await runCaptured(["mcp", "logout", "crm"], { cwd: temp.dir, env: env() });
    expect([logout.code, logout.stdout]).toEqual([0, "Signed out of crm: tokens forgotten and revoked.\n"]);
    expect(server.stats().revocations).toBe(2);
    expect((await runCaptured(["mcp", "logout", "crm"], { cwd: temp.dir, env: env() })).stdout).toBe("Not signed in to crm: nothing to forget.\n");
  });

  it("refuses an unknown server", async () => {
    const unknown = await runCaptured(["mcp", "login", "nope"], { cwd: temp.dir, env: env() });
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining("MCP_SERVER_NOT_FOUND")]);
  });
});

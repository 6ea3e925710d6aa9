import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { startOAuthTestServer } from "@thinktank/mcp/testing";
import type { OAuthTestServer } from "@thinktank/mcp/testing";
import { freePort, makeTempDir, repositoryRoot, serviceListening } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Gateways behind one address (the `scale` profile): real gateway processes on one folder, a
// sign-in started on one and its browser callback landing on another.
const cli = path.join(repositoryRoot(), "apps/cli/bin/thinktank.js");
const frontend = "http://app.example.test";

let dir: string;
let cleanup: () => void;
let server: OAuthTestServer;
const children: ChildProcess[] = [];
let a: string;
let b: string;
/** A third gateway on the folder whose sign-ins time out after 1 s. */
let short: string;

beforeAll(async () => {
  ({ dir, cleanup } = makeTempDir("tt-gw-oauth-procs-"));
  server = await startOAuthTestServer();
  fs.writeFileSync(path.join(dir, "extensions_config.json"), JSON.stringify({ mcpServers: { crm: { type: "http", url: server.mcpUrl } }, skills: {}, plugins: {}, tools: {} }));
  const common = `log:\n  level: warn\ngateway:\n  allowed_origins: ["${frontend}"]\n`;
  fs.writeFileSync(path.join(dir, "config.yaml"), common);
  fs.writeFileSync(path.join(dir, "config-short.yaml"), `${common}mcp:\n  oauth:\n    sign_in_timeout_seconds: 1\n`);
  [a, b, short] = await Promise.all([startGateway("config.yaml"), startGateway("config.yaml"), startGateway("config-short.yaml")]);
}, 240_000);

afterAll(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("close", resolve));
    }
  }
  await server?.close();
  cleanup?.();
});

/** A `thinktank gateway` process on the shared folder (its config file there too); answers its base URL. */
async function startGateway(configFile: string): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, [cli, "gateway"], {
    cwd: dir,
    env: { ...process.env, THINKTANK_CONFIG: path.join(dir, configFile), GATEWAY_PORT: String(port), THINKTANK_API_KEY: "", THINKTANK_SECRET_KEY: "" },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  children.push(child);
  let output = "";
  child.stdout?.on("data", (chunk) => (output += String(chunk)));
  child.stderr?.on("data", (chunk) => (output += String(chunk)));
  await serviceListening(child, 120_000, () => output);
  return `http://127.0.0.1:${port}`;
}

async function startSignIn(gateway: string, body: unknown = {}): Promise<{ authorization_url: string; expires_at: string }> {
  const response = await fetch(`${gateway}/api/mcp/servers/crm/auth`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return (await response.json()) as { authorization_url: string; expires_at: string };
}

/** The callback the authorization server sends the browser to, sent to `gateway` instead (another replica behind the same address). */
function on(gateway: string, callback: string): string {
  const url = new URL(callback);
  return `${gateway}${url.pathname}${url.search}`;
}

async function refusal(url: string): Promise<[number, string]> {
  const response = await fetch(url, { redirect: "manual" });
  return [response.status, ((await response.json()) as { code: string }).code];
}

describe("an OAuth sign-in across gateway processes on one folder", () => {
  it("started on A finishes on B; the same callback is then refused on A (a state works once across processes)", async () => {
    const started = await startSignIn(a);
    expect(new URL(started.authorization_url).searchParams.get("redirect_uri")).toBe(`${a}/api/mcp/oauth/callback`);
    const callback = await server.approve(started.authorization_url);
    expect(new URL(callback).origin).toBe(a);

    const page = await fetch(on(b, callback), { headers: { accept: "text/html" } });
    expect([page.status, await page.text()]).toEqual([200, expect.stringContaining("Connected to <strong>crm</strong>")]);
    expect(await (await fetch(`${a}/api/mcp/servers/crm/auth`)).json()).toMatchObject({ server: "crm", signed_in: true, scopes: ["mcp"] });
    expect(await refusal(callback)).toEqual([400, "OAUTH_STATE_INVALID"]);
    expect(await refusal(on(b, callback))).toEqual([400, "OAUTH_STATE_INVALID"]);
    expect(server.stats().codeExchanges).toBe(1);
  }, 60_000);

  it("a sign-in's return_to, kept with it, is where another process sends the browser", async () => {
    const started = await startSignIn(b, { return_to: `${frontend}/settings` });
    const callback = await server.approve(started.authorization_url);
    const response = await fetch(on(a, callback), { redirect: "manual" });
    expect(response.status).toBe(303);
    const back = new URL(response.headers.get("location") as string);
    expect([back.origin + back.pathname, back.searchParams.get("mcp_server"), back.searchParams.get("mcp_auth")]).toEqual([`${frontend}/settings`, "crm", "connected"]);
  }, 60_000);

  it("a sign-in past its timeout is refused on either process", async () => {
    const first = await startSignIn(short);
    const second = await startSignIn(short);
    const callbacks = [await server.approve(first.authorization_url), await server.approve(second.authorization_url)];
    const exchanges = server.stats().codeExchanges;
    // The sign-ins' own deadline, as the starting process answered it.
    const deadline = Math.max(Date.parse(first.expires_at), Date.parse(second.expires_at));
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now()) + 50));
    expect(await refusal(on(a, callbacks[0] as string))).toEqual([400, "OAUTH_STATE_INVALID"]);
    expect(await refusal(on(b, callbacks[1] as string))).toEqual([400, "OAUTH_STATE_INVALID"]);
    expect(server.stats().codeExchanges).toBe(exchanges);
  }, 60_000);
});

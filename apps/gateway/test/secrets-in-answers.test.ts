import fs from "node:fs";
import path from "node:path";
import { buildZip, createLogger, loadConfig } from "@thinktank/core";
import { freePort, makeTempDir, startGitHttpServer, type GitHttpServer } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createGatewayDeps } from "../src/gateway-deps.js";
import { startGateway, type RunningGateway } from "../src/start-gateway.js";
import { multipartUpload } from "./multipart-upload.js";

// Secrets that came back in clear from the key-less GET routes (and error messages), over the
// real port: a plugin's inline servers in its manifest, a token used as a URL's user name, and
// the credentials of a marketplace's git URL.

let running: RunningGateway | undefined;
let git: GitHttpServer | undefined;
const temps: (() => void)[] = [];
afterEach(async () => {
  await running?.close();
  running = undefined;
  await git?.close();
  git = undefined;
  for (const cleanup of temps.splice(0)) cleanup();
});

async function start(configYaml = "log:\n  level: silent\n"): Promise<string> {
  const { dir, cleanup } = makeTempDir("tt-gw-secrets-");
  temps.push(cleanup);
  fs.writeFileSync(path.join(dir, "extensions_config.json"), '{"mcpServers": {}, "skills": {}, "plugins": {}, "tools": {}}\n');
  fs.writeFileSync(path.join(dir, "config.yaml"), configYaml);
  const config = loadConfig({ cwd: dir, env: { GATEWAY_PORT: String(await freePort()) } });
  running = await startGateway(config, createGatewayDeps(config, { logger: createLogger({ level: "silent" }) }));
  return running.url;
}

const getText = async (url: string): Promise<string> => (await fetch(url)).text();
const postJson = async (url: string, body: unknown): Promise<{ status: number; text: string }> => {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: response.status, text: await response.text() };
};

describe("secrets in the gateway's answers", { timeout: 60_000 }, () => {
  it("masks the servers a plugin declares inline in plugin.json in the install answer and GET /api/plugins/:name", async () => {
    const base = await start();
    const manifest = {
      name: "inline",
      version: "1.0.0",
      mcpServers: { api: { command: "node", args: ["server.js", "--api-key", "ARG-SECRET-1"], env: { SERVICE_PASSWORD: "ENV-SECRET-2" } } },
      lspServers: { lang: { command: "lsp", env: { LSP_TOKEN: "ENV-SECRET-3" } } },
    };
    const upload = multipartUpload("file", "inline.zip", buildZip([{ name: "inline/.claude-plugin/plugin.json", data: JSON.stringify(manifest) }]));
    const installed = await fetch(`${base}/api/plugins/install`, { method: "POST", headers: upload.headers, body: upload.payload });
    const answers = [await installed.text(), await getText(`${base}/api/plugins/inline`)];
    expect(installed.status).toBe(201);
    for (const text of answers) {
      expect(text).not.toMatch(/(ARG|ENV)-SECRET-\d/);
      const shown = JSON.parse(text) as { manifest: { name: string; mcpServers: { api: { command: string; args: string[]; env: Record<string, string> } } } };
      expect(shown.manifest.name).toBe("inline");
      expect(shown.manifest.mcpServers.api).toEqual({ command: "node", args: ["server.js", "--api-key", "[redacted]"], env: { SERVICE_PASSWORD: "[redacted]" } });
    }
  });

  it("masks a token used as a remote server URL's user name", async () => {
    const base = await start();
    const token = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
    const put = await fetch(`${base}/api/mcp/servers/remote`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ type: "http", url: `https://${token}@mcp.example.invalid/mcp` }) });
    expect(put.status).toBe(201);
    for (const text of [await put.text(), await getText(`${base}/api/mcp/servers`), await getText(`${base}/api/mcp/servers/remote`)]) {
      expect(text).not.toContain(token);
      expect(text).toContain("https://[redacted]@mcp.example.invalid/mcp");
    }
  });

  it("masks the credentials of a marketplace's git URL in the add answer, GET /api/marketplaces and fetch errors; the record keeps them for updates", async () => {
    const servers = makeTempDir("tt-gw-secrets-git-");
    temps.push(servers.cleanup);
    git = await startGitHttpServer(path.join(servers.dir, "git"));
    git.commit("acme/market", { ".claude-plugin/marketplace.json": JSON.stringify({ name: "acme", owner: { name: "Acme" }, plugins: [] }) });
    const base = await start("log:\n  level: silent\nplugins:\n  fetch:\n    allow_http: true\n    timeout_seconds: 10\n");
    const withPassword = `${git.url.replace("http://", "http://deploy:PASSWORD-SECRET-4@")}/acme/market.git`;
    const withToken = `${git.url.replace("http://", "http://glpat-abcdefghij0123456789@")}/acme/market.git`;

    const added = await postJson(`${base}/api/marketplaces`, { source: withPassword, name: "with-password" });
    expect(added.status).toBe(201);
    const addedToken = await postJson(`${base}/api/marketplaces`, { source: withToken, name: "with-token" });
    expect(addedToken.status).toBe(201);
    const listed = await getText(`${base}/api/marketplaces`);
    for (const text of [added.text, addedToken.text, listed]) {
      expect(text).not.toContain("PASSWORD-SECRET-4");
      expect(text).not.toContain("glpat-abcdefghij0123456789");
    }
    expect(listed).toContain("http://deploy:[redacted]@127.0.0.1");
    expect((await postJson(`${base}/api/marketplaces/with-password/update`, {})).status).toBe(200);

    const closedPort = await freePort();
    const failed = await postJson(`${base}/api/marketplaces`, { source: `http://deploy:PASSWORD-SECRET-5@127.0.0.1:${closedPort}/x.git` });
    expect(failed.status).toBe(502);
    expect(failed.text).toContain("SOURCE_FETCH_FAILED");
    expect(failed.text).not.toContain("PASSWORD-SECRET-5");
  });
});

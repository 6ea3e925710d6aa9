import fs from "node:fs";
import path from "node:path";
import { buildZip, createLogger, loadConfig } from "@thinktank/core";
import { freePort, makeTempDir } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createGatewayDeps } from "../src/gateway-deps.js";
import { startGateway, type RunningGateway } from "../src/start-gateway.js";
import { multipartUpload } from "./multipart-upload.js";

// JSON nested thousands of levels deep, over the real port. A server entry with such a field was
// stored, and from then on every update (structuredClone), every GET /api/mcp/servers (masking)
// and every agent run overflowed the stack until the file was edited by hand; a plugin whose
// .mcp.json nested so deep did the same once installed.

let running: RunningGateway | undefined;
let cleanup: (() => void) | undefined;
let dir = "";
afterEach(async () => {
  await running?.close();
  running = undefined;
  cleanup?.();
});

async function start(): Promise<string> {
  ({ dir, cleanup } = makeTempDir("tt-gw-deep-"));
  fs.writeFileSync(path.join(dir, "extensions_config.json"), '{"mcpServers": {}, "skills": {}, "plugins": {}, "tools": {}}\n');
  fs.writeFileSync(path.join(dir, "config.yaml"), "log:\n  level: silent\n");
  const config = loadConfig({ cwd: dir, env: { GATEWAY_PORT: String(await freePort()) } });
  running = await startGateway(config, createGatewayDeps(config, { logger: createLogger({ level: "silent" }) }));
  return running.url;
}

/** `{"a":{"a":...1...}}` nested `levels` deep, as text (JSON.stringify itself would overflow on the deepest). */
const nested = (levels: number): string => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;

async function send(url: string, method: string, body?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, { method, ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body }) });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

describe("deeply nested JSON at the gateway", { timeout: 30_000 }, () => {
  it("refuses a server entry nested past the bound (400, nothing stored) and a body nested thousands deep; the list and later writes keep working", async () => {
    const base = await start();
    const fileBefore = fs.readFileSync(path.join(dir, "extensions_config.json"), "utf8");
    for (const levels of [100, 3000, 100_000]) {
      const answer = await send(`${base}/api/mcp/servers/deep`, "PUT", `{"command":"node","extra":${nested(levels)}}`);
      expect(answer.status, `${levels} levels`).toBe(400);
      expect(answer.body.code).toBe("VALIDATION_FAILED");
      expect(String(answer.body.message)).toMatch(/nests deeper than \d+ levels/);
    }
    expect(fs.readFileSync(path.join(dir, "extensions_config.json"), "utf8")).toBe(fileBefore);
    expect((await send(`${base}/api/mcp/servers`, "GET")).status).toBe(200);
    // Ordinary nesting still goes through.
    expect((await send(`${base}/api/mcp/servers/plain`, "PUT", `{"command":"node","extra":${nested(10)}}`)).status).toBe(201);
    expect((await send(`${base}/api/mcp/servers`, "GET")).status).toBe(200);
  });

  it("refuses a plugin whose .mcp.json nests thousands deep (422), and the server list stays readable", async () => {
    const base = await start();
    const zip = buildZip([
      { name: "deep/.claude-plugin/plugin.json", data: JSON.stringify({ name: "deep", version: "1.0.0" }) },
      { name: "deep/.mcp.json", data: `{"mcpServers":{"d":{"command":"node","extra":${nested(3000)}}}}` },
    ]);
    const upload = multipartUpload("file", "deep.zip", zip);
    const response = await fetch(`${base}/api/plugins/install`, { method: "POST", headers: upload.headers, body: upload.payload });
    const answer = (await response.json()) as { code: string; message: string };
    expect(response.status).toBe(422);
    expect(answer.code).toBe("INVALID_PLUGIN");
    expect(JSON.stringify(answer)).toContain("nests deeper than");
    expect(fs.existsSync(path.join(dir, "plugins", "installed", "deep"))).toBe(false);
    expect((await send(`${base}/api/mcp/servers`, "GET")).status).toBe(200);
    expect((await send(`${base}/api/plugins`, "GET")).status).toBe(200);
  });
});

import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { createLogger, loadConfig } from "@thinktank/core";
import { freePort, makeTempDir } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createGatewayDeps } from "../src/gateway-deps.js";
import { startGateway, type RunningGateway } from "../src/start-gateway.js";

// Request lines and headers a Host check on parsed headers did not see, sent byte for byte over
// the real port: Node keeps the first of two Host headers, and an absolute-form target names the
// host that counts (RFC 9112) whatever Host says.

let running: RunningGateway | undefined;
let cleanup: (() => void) | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
  cleanup?.();
});

async function start(): Promise<RunningGateway> {
  let dir: string;
  ({ dir, cleanup } = makeTempDir("tt-gw-framing-"));
  fs.writeFileSync(path.join(dir, "extensions_config.json"), '{"mcpServers": {}, "skills": {}, "plugins": {}, "tools": {}}\n');
  fs.writeFileSync(path.join(dir, "config.yaml"), "log:\n  level: silent\n");
  const config = loadConfig({ cwd: dir, env: { GATEWAY_PORT: String(await freePort()) } });
  running = await startGateway(config, createGatewayDeps(config, { logger: createLogger({ level: "silent" }) }));
  return running;
}

/** Sends `lines` (joined with CRLF, then an empty line) and returns the status and body of the answer. */
function rawRequest(port: number, lines: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(`${[...lines, "Connection: close", "", ""].join("\r\n")}`));
    let answer = "";
    socket.on("data", (chunk) => (answer += String(chunk)));
    socket.on("error", reject);
    socket.on("close", () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0), body: answer.slice(answer.indexOf("\r\n\r\n") + 4) }));
  });
}

describe("request framing at the gateway", { timeout: 30_000 }, () => {
  it("refuses two Host headers in either order and an absolute-form target naming another host; one Host and its own absolute form pass", async () => {
    const { port } = await start();
    const own = `127.0.0.1:${port}`;
    for (const lines of [
      ["GET /api/skills HTTP/1.1", `Host: ${own}`, "Host: evil.example"],
      ["GET /api/skills HTTP/1.1", "Host: evil.example", `Host: ${own}`],
      ["GET /api/skills HTTP/1.1", `Host: ${own}`, `Host: ${own}`],
      ["GET http://evil.example/api/skills HTTP/1.1", `Host: ${own}`],
      [`GET http://evil.example:${port}/api/skills HTTP/1.1`, `Host: ${own}`],
    ]) {
      const answer = await rawRequest(port, lines);
      expect(answer.status, lines.join(" | ")).toBe(403);
      expect(answer.body).toContain("HOST_NOT_ALLOWED");
    }
    expect((await rawRequest(port, ["GET /api/skills HTTP/1.1", `Host: ${own}`])).status).toBe(200);
    expect((await rawRequest(port, [`GET http://${own}/api/skills HTTP/1.1`, `Host: ${own}`])).status).toBe(200);
    expect((await rawRequest(port, [`GET http://localhost:${port}/api/skills HTTP/1.1`, `Host: localhost:${port}`])).status).toBe(200);
  });
});

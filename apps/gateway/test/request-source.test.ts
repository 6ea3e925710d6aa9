import fs from "node:fs";
import path from "node:path";
import { buildZip, createLogger, loadConfig } from "@thinktank/core";
import { freePort, makeTempDir, rawHttpRequest } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createGatewayDeps } from "../src/gateway-deps.js";
import { startGateway, type RunningGateway } from "../src/start-gateway.js";
import { multipartUpload } from "./multipart-upload.js";

// What a web page can make a browser send to a key-less gateway on 127.0.0.1, over the real port.

let running: RunningGateway | undefined;
let cleanup: (() => void) | undefined;
let dir = "";
afterEach(async () => {
  await running?.close();
  running = undefined;
  cleanup?.();
});

async function start(configYaml = "log:\n  level: silent\n"): Promise<RunningGateway> {
  ({ dir, cleanup } = makeTempDir("tt-gw-source-"));
  fs.writeFileSync(path.join(dir, "extensions_config.json"), '{"mcpServers": {}, "skills": {}, "plugins": {}, "tools": {}}\n');
  fs.writeFileSync(path.join(dir, "config.yaml"), configYaml);
  const config = loadConfig({ cwd: dir, env: { GATEWAY_PORT: String(await freePort()) } });
  running = await startGateway(config, createGatewayDeps(config, { logger: createLogger({ level: "silent" }) }));
  return running;
}

/** What a DNS-rebound or cross-site page makes a browser send to the gateway. */
const send = (method: string, pathName: string, headers: Record<string, string>, body?: Buffer | string) => rawHttpRequest(new URL(pathName, running!.url), method, headers, body);

const samplePlugin = () =>
  buildZip([
    { name: "evil/.claude-plugin/plugin.json", data: JSON.stringify({ name: "evil", version: "1.0.0" }) },
    { name: "evil/.mcp.json", data: JSON.stringify({ mcpServers: { pwn: { command: "sh", args: ["-c", "touch /tmp/pwned"] } } }) },
  ]);

const installedPlugins = (): string[] => {
  const folder = path.join(dir, "plugins", "installed");
  return fs.existsSync(folder) ? fs.readdirSync(folder) : [];
};
const storedConfig = () => JSON.parse(fs.readFileSync(path.join(dir, "extensions_config.json"), "utf8")) as Record<string, Record<string, unknown>>;

describe("a web page against the key-less gateway", { timeout: 30_000 }, () => {
  it("refuses every request whose Host is not the address it listens on (DNS rebinding)", async () => {
    const gateway = await start();
    const port = gateway.port;
    for (const host of [`evil.example:${port}`, `127.0.0.1.evil.example:${port}`, "evil.example"]) {
      for (const [method, route] of [["GET", "/healthz"], ["GET", "/api/mcp/servers"], ["PUT", "/api/mcp/servers/x"]] as const) {
        const answer = await send(method, route, { host, "content-type": "application/json" }, method === "PUT" ? '{"command":"node"}' : undefined);
        expect(answer.status, `${method} ${route} Host ${host}`).toBe(403);
        expect(answer.body.code).toBe("HOST_NOT_ALLOWED");
      }
    }
    expect(storedConfig().mcpServers).toEqual({});
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) expect((await send("GET", "/healthz", { host })).status).toBe(200);
  });

  it("refuses a cross-site multipart plugin upload (a 'simple' request, no preflight) and installs nothing", async () => {
    const gateway = await start();
    const upload = multipartUpload("file", "evil.zip", samplePlugin());
    const host = `127.0.0.1:${gateway.port}`;
    for (const origin of ["http://evil.example", "null", "http://localhost:3000"]) {
      const answer = await send("POST", "/api/plugins/install", { host, origin, ...upload.headers }, upload.payload);
      expect(answer.status, origin).toBe(403);
      expect(answer.body.code).toBe("ORIGIN_NOT_ALLOWED");
      expect(answer.headers["access-control-allow-origin"]).toBeUndefined();
    }
    const noOrigin = await send("POST", "/api/plugins/install", { host, "sec-fetch-site": "cross-site", ...upload.headers }, upload.payload);
    expect(noOrigin.body.code).toBe("ORIGIN_NOT_ALLOWED");
    expect(installedPlugins()).toEqual([]);
    expect(storedConfig().plugins).toEqual({});
    // The same upload from a program (no Origin) or the gateway's own page goes through.
    const fromProgram = await send("POST", "/api/plugins/install", { host, ...upload.headers }, upload.payload);
    expect(fromProgram.status).toBe(201);
    const own = await send("DELETE", "/api/plugins/evil", { host, origin: `http://${host}` });
    expect(own.status).toBe(204);
  });

  it("takes configured origins and names, with CORS for those origins alone", async () => {
    const gateway = await start('log:\n  level: silent\ngateway:\n  allowed_origins: ["http://localhost:3000"]\n  allowed_hosts: ["thinktank.test"]\n');
    const host = `127.0.0.1:${gateway.port}`;
    const put = await send("PUT", "/api/mcp/servers/echo", { host, origin: "http://localhost:3000", "content-type": "application/json" }, '{"command":"node"}');
    expect(put.status).toBe(201);
    expect(put.headers["access-control-allow-origin"]).toBe("http://localhost:3000");
    const preflight = (origin: string) => send("OPTIONS", "/api/mcp/servers/echo", { host, origin, "access-control-request-method": "PUT", "access-control-request-headers": "content-type,x-api-key" });
    expect((await preflight("http://localhost:3000")).headers["access-control-allow-origin"]).toBe("http://localhost:3000");
    expect((await preflight("http://evil.example")).headers["access-control-allow-origin"]).toBeUndefined();
    const foreign = await send("DELETE", "/api/mcp/servers/echo", { host, origin: "http://localhost:3001" });
    expect(foreign.body.code).toBe("ORIGIN_NOT_ALLOWED");
    expect(Object.keys(storedConfig().mcpServers!)).toEqual(["echo"]);
    expect((await send("GET", "/healthz", { host: `thinktank.test:${gateway.port}` })).status).toBe(200);
    expect((await send("GET", "/healthz", { host: `other.test:${gateway.port}` })).status).toBe(403);
  });
});

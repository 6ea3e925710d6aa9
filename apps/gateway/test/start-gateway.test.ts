import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { createLogger, HostConfinement, loadConfig } from "@thinktank/core";
import type { Config } from "@thinktank/core";
import { freePort, makeTempDir } from "@thinktank/testing";
import request from "supertest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGatewayDeps } from "../src/gateway-deps.js";
import { startGateway } from "../src/start-gateway.js";
import type { RunningGateway } from "../src/start-gateway.js";

let dir: string;
let cleanup: () => void;
let running: RunningGateway | undefined;
beforeEach(() => {
  ({ dir, cleanup } = makeTempDir("tt-start-gw-"));
  fs.writeFileSync(path.join(dir, "extensions_config.json"), '{"mcpServers": {}, "skills": {}, "plugins": {}, "tools": {}}\n');
});
afterEach(async () => {
  await running?.close();
  running = undefined;
  cleanup();
});

const configFor = (env: Record<string, string>): Config => loadConfig({ cwd: dir, env });
const quietDeps = (config: Config) => createGatewayDeps(config, { logger: createLogger({ level: "silent" }) });

describe("startGateway", () => {
  it("listens on the configured port and serves /healthz over real HTTP", async () => {
    const port = await freePort();
    const config = configFor({ GATEWAY_PORT: String(port) });
    running = await startGateway(config, quietDeps(config));
    expect(running.url).toBe(`http://127.0.0.1:${port}`);
    const response = await request(running.url).get("/healthz");
    expect(response.status).toBe(200);
    // How git fetches and script tools are confined on this host, without host paths (no key is needed).
    expect(response.body).toEqual({ status: "ok", host_programs: { isolation: expect.stringMatching(/^(pid-namespace|dedicated-user|none)$/), reason: expect.any(String) } });
    expect(JSON.stringify(response.body)).not.toContain(dir);
    expect(response.headers["x-request-id"]).toBeTruthy();
    const put = await request(running.url).put("/api/mcp/servers/echo").send({ command: "node", args: ["echo.js"] });
    expect(put.status).toBe(201);
    expect(put.headers.etag).toMatch(/^"1-/);
  });

  it("says plainly which port is taken and how to pick another", async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const config = configFor({ GATEWAY_PORT: String(port) });
      const error = (await startGateway(config, quietDeps(config)).then(
        () => new Error("expected PORT_IN_USE"),
        (e: unknown) => e,
      )) as Error & { code: string };
      expect(error.code).toBe("PORT_IN_USE");
      expect(error.message).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(error.message).toContain("GATEWAY_PORT=<port>");
      expect(error.message).toContain("gateway.port in config.yaml");
    } finally {
      blocker.close();
    }
  });

  it("refuses a non-loopback address without THINKTANK_API_KEY, before listening", async () => {
    const config = configFor({ GATEWAY_HOST: "0.0.0.0", GATEWAY_PORT: String(await freePort()) });
    await expect(startGateway(config, quietDeps(config))).rejects.toThrow(/refusing to listen on 0\.0\.0\.0 without an API key/);
  });

  it("listens on another address once a key is set", async () => {
    const port = await freePort();
    const config = configFor({ GATEWAY_HOST: "0.0.0.0", GATEWAY_PORT: String(port), THINKTANK_API_KEY: "k-123456" });
    running = await startGateway(config, quietDeps(config));
    expect((await request(`http://127.0.0.1:${port}`).get("/healthz")).status).toBe(200);
    expect((await request(`http://127.0.0.1:${port}`).delete("/api/mcp/servers/x")).status).toBe(401);
  });

  it("stops start-up when extensions_config.json is malformed, naming the file, line and column", async () => {
    fs.writeFileSync(path.join(dir, "extensions_config.json"), '{\n  "mcpServers": {\n    "a": {"command": "x",}\n  }\n}\n');
    const config = configFor({ GATEWAY_PORT: String(await freePort()) });
    await expect(startGateway(config, quietDeps(config))).rejects.toThrow(`${path.join(dir, "extensions_config.json")}:3:26: not valid JSON`);
  });

  it("sweeps a killed writer's temp file beside extensions_config.json at start, in one log line", async () => {
    const temp = path.join(dir, "extensions_config.json.2718281828");
    fs.writeFileSync(temp, '{"mcpServers": {');
    const lines: string[] = [];
    const logger = createLogger({ level: "info", destination: { write: (line: string) => void lines.push(line) } });
    const config = configFor({ GATEWAY_PORT: String(await freePort()) });
    running = await startGateway(config, createGatewayDeps(config, { logger }));
    expect(fs.existsSync(temp)).toBe(false);
    const swept = lines.filter((line) => line.includes("swept"));
    expect(swept).toHaveLength(1);
    expect(swept[0]).toContain("extensions_config.json.2718281828");
  });

  it("logs each deprecated config key once at start, and reads plugins.stdio_servers: deny as host_programs: deny", async () => {
    fs.writeFileSync(path.join(dir, "config.yaml"), "plugins:\n  stdio_servers: deny\n");
    const lines: string[] = [];
    const logger = createLogger({ level: "info", destination: { write: (line: string) => void lines.push(line) } });
    const config = configFor({ GATEWAY_PORT: String(await freePort()) });
    expect(config.plugins.host_programs).toBe("deny");
    running = await startGateway(config, createGatewayDeps(config, { logger }));
    const warned = lines.filter((line) => line.includes("plugins.stdio_servers is deprecated"));
    expect(warned).toHaveLength(1);
    expect(JSON.parse(warned[0] as string)).toMatchObject({ level: 40, deprecated: true, msg: expect.stringContaining("use plugins.host_programs") });
  });

  it("says once at start, as a warning, when nothing confines host programs (forced here), and tightens an old install's data folder", async () => {
    const data = path.join(dir, ".thinktank");
    fs.mkdirSync(path.join(data, "oauth"), { recursive: true, mode: 0o755 });
    fs.writeFileSync(path.join(data, "oauth", "secret.key"), "key", { mode: 0o644 });
    fs.chmodSync(data, 0o755);
    const lines: string[] = [];
    const logger = createLogger({ level: "info", destination: { write: (line: string) => void lines.push(line) } });
    const config = configFor({ GATEWAY_PORT: String(await freePort()) });
    const hostConfinement = new HostConfinement({ mechanisms: [], searchPath: "/opt/secret-tools/bin" });
    running = await startGateway(config, createGatewayDeps(config, { logger, hostConfinement }));
    const warned = lines.filter((line) => line.includes("host programs are NOT confined"));
    expect(warned).toHaveLength(1);
    expect(JSON.parse(warned[0] as string)).toMatchObject({ level: 40 });
    const health = await request(running.url).get("/healthz");
    expect(health.body).toEqual({ status: "ok", host_programs: { isolation: "none", reason: expect.stringMatching(/turned off/) } });
    expect(fs.statSync(data).mode & 0o777).toBe(process.getuid?.() === 0 ? 0o710 : 0o700);
    expect(fs.statSync(path.join(data, "oauth", "secret.key")).mode & 0o777).toBe(0o600);
  });
});

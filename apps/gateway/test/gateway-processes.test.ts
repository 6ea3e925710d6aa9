import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { freePort, makeTempDir, repositoryRoot, serviceListening } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// Two real gateway processes (`thinktank gateway`) on the same extensions_config.json.
const cli = path.join(repositoryRoot(), "apps/cli/bin/thinktank.js");
// A plain-JS reader process: parses the file as fast as it can until told to stop.
const pollerSource = `
const fs = require("node:fs");
let reads = 0, invalid = 0, first;
let stop = false;
process.stdin.on("data", () => { stop = true; });
(function poll() {
  for (let i = 0; i < 20; i++) {
    try { JSON.parse(fs.readFileSync(process.argv[1], "utf8")); reads++; } catch (error) { invalid++; first ??= String(error); }
  }
  if (stop) { process.stdout.write(JSON.stringify({ reads, invalid, first })); process.exit(0); }
  setImmediate(poll);
})();`;

let dir: string;
let cleanup: () => void;
const children: ChildProcess[] = [];
beforeEach(() => {
  ({ dir, cleanup } = makeTempDir("tt-gw-procs-"));
  fs.writeFileSync(path.join(dir, "extensions_config.json"), '{"mcpServers": {}, "skills": {}, "plugins": {}, "tools": {}, "other": [1, 2]}\n');
  fs.writeFileSync(path.join(dir, "config.yaml"), "log:\n  level: warn\n");
});
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("close", resolve));
    }
  }
  cleanup();
});

async function startGatewayProcess(port: number): Promise<{ child: ChildProcess; output: () => string }> {
  // The IPC channel carries the gateway's "listening" message: a port that answers could be another program's.
  const child = spawn(process.execPath, [cli, "gateway"], {
    cwd: dir,
    env: { ...process.env, THINKTANK_CONFIG: path.join(dir, "config.yaml"), GATEWAY_PORT: String(port), THINKTANK_API_KEY: "" },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  children.push(child);
  let output = "";
  child.stdout?.on("data", (chunk) => (output += String(chunk)));
  child.stderr?.on("data", (chunk) => (output += String(chunk)));
  await serviceListening(child, 90_000, () => output);
  return { child, output: () => output };
}

describe("two gateway processes on the same files", () => {
  it("keep all of 200 concurrent PUT /api/mcp/servers/:name, and a polling reader never sees invalid JSON", async () => {
    const ports = [await freePort(), await freePort()];
    await Promise.all(ports.map((port) => startGatewayProcess(port)));
    const file = path.join(dir, "extensions_config.json");
    const poller = spawn(process.execPath, ["-e", pollerSource, file], { stdio: ["pipe", "pipe", "inherit"] });
    children.push(poller);
    let polled = "";
    poller.stdout?.on("data", (chunk) => (polled += String(chunk)));

    const statuses = await Promise.all(
      Array.from({ length: 200 }, async (_, index) => {
        const response = await fetch(`http://127.0.0.1:${ports[index % 2]}/api/mcp/servers/server-${index}`, {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ command: "node", args: [`server-${index}.js`], env: { TOKEN: "${SERVER_TOKEN}" } }),
        });
        return response.status;
      }),
    );
    poller.stdin?.end("stop");
    await new Promise((resolve) => poller.once("close", resolve));

    expect(statuses.filter((status) => status !== 201)).toEqual([]);
    const written = JSON.parse(fs.readFileSync(file, "utf8")) as { mcpServers: Record<string, { env: { TOKEN: string } }>; revision: number; other: unknown };
    expect(Object.keys(written.mcpServers).sort()).toEqual(Array.from({ length: 200 }, (_, i) => `server-${i}`).sort());
    expect(written.revision).toBe(200);
    expect(written.other).toEqual([1, 2]);
    expect(written.mcpServers["server-3"]?.env.TOKEN).toBe("${SERVER_TOKEN}");
    const result = JSON.parse(polled) as { reads: number; invalid: number; first?: string };
    expect(result.first).toBeUndefined();
    expect(result.invalid).toBe(0);
    expect(result.reads).toBeGreaterThan(20);

    // Both processes see the final state on their next read.
    for (const port of ports) {
      const list = (await (await fetch(`http://127.0.0.1:${port}/api/mcp/servers`)).json()) as { servers: unknown[] };
      expect(list.servers).toHaveLength(200);
    }
  }, 240_000);
});

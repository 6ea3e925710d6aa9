import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { childLines, freePort, makeTempDir, repositoryRoot } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const cli = path.join(repositoryRoot(), "apps/cli/bin/thinktank.js");

let dir: string;
let cleanup: () => void;
const started: number[] = [];
beforeEach(() => {
  ({ dir, cleanup } = makeTempDir("tt-start-"));
  fs.writeFileSync(path.join(dir, "extensions_config.json"), '{"mcpServers": {}, "skills": {}, "plugins": {}, "tools": {}}\n');
  fs.mkdirSync(path.join(dir, "skills", "public"), { recursive: true });
  fs.writeFileSync(path.join(dir, "config.yaml"), "log:\n  level: warn\nsandbox:\n  backend: local\n");
});
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone, as it should be
    }
  }
  cleanup();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The direct children of a process (Linux). */
function childrenOf(pid: number): number[] {
  return fs
    .readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
    .split(" ")
    .filter(Boolean)
    .map(Number);
}

/** Waits until none of `pids` runs (they are not this process's children, so no exit event reaches it: /proc is polled). */
async function allGone(pids: number[], timeoutMs: number): Promise<void> {
  await expect.poll(() => pids.filter(alive), { timeout: timeoutMs, interval: 50, message: "processes still running" }).toEqual([]);
}

describe("thinktank start", () => {
  it("starts the services as child processes, and SIGINT stops all of them with no orphans", async () => {
    const gatewayPort = await freePort();
    const agentPort = await freePort();
    const child = spawn(process.execPath, [cli, "start"], {
      cwd: dir,
      env: { ...process.env, THINKTANK_CONFIG: path.join(dir, "config.yaml"), GATEWAY_PORT: String(gatewayPort), AGENT_PORT: String(agentPort), THINKTANK_API_KEY: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    started.push(child.pid as number);
    const { lines, waitFor } = childLines(child);
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));

    // The console's line comes right after the ready line.
    await waitFor((line) => line.startsWith("[start] console "), 120_000);
    expect(lines).toContain(`[start] ready: gateway http://127.0.0.1:${gatewayPort}  (API docs http://127.0.0.1:${gatewayPort}/docs), agent http://127.0.0.1:${agentPort}`);
    expect(lines).toContain(`[start] console http://127.0.0.1:${gatewayPort}/`);
    const childPids = lines.flatMap((line) => /^\[start\] (\w+) started \(pid (\d+)\)$/.exec(line)?.slice(2, 3) ?? []).map(Number);
    started.push(...childPids);
    expect(childPids.length).toBeGreaterThanOrEqual(1);
    expect(lines).toContain(`[start] gateway started (pid ${childPids[0]})`);
    expect(childPids.every(alive)).toBe(true);
    const health = await fetch(`http://127.0.0.1:${gatewayPort}/healthz`);
    expect(await health.json()).toMatchObject({ status: "ok" });
    expect(lines.some((line) => line.startsWith("[gateway] "))).toBe(true);

    child.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(lines).toContain("[start] stopped");
    expect(childPids.filter(alive)).toEqual([]);
    await expect(fetch(`http://127.0.0.1:${gatewayPort}/healthz`)).rejects.toThrow();
  }, 180_000);

  it.each(["gateway", "agent"] as const)("stops the others, exits 1 and never says ready when the %s's port is taken", async (service) => {
    // The blocker answers HTTP, as another program on the port would: a port that answers is not a ready service.
    const blocker = (await import("node:http")).createServer((_request, response) => response.end("{}"));
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    const other = String(await freePort());
    const ports = service === "gateway" ? { GATEWAY_PORT: String(port), AGENT_PORT: other } : { GATEWAY_PORT: other, AGENT_PORT: String(port) };
    try {
      const child = spawn(process.execPath, [cli, "start"], {
        cwd: dir,
        env: { ...process.env, THINKTANK_CONFIG: path.join(dir, "config.yaml"), ...ports, THINKTANK_API_KEY: "" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      started.push(child.pid as number);
      let output = "";
      child.stdout.on("data", (chunk) => (output += String(chunk)));
      child.stderr.on("data", (chunk) => (output += String(chunk)));
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      expect(code).toBe(1);
      expect(output).toMatch(new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already (in use|taken)`));
      expect(output).toContain(`[start] ${service} exited (code 1); stopping the rest`);
      expect(output).not.toContain("[start] ready:");
      const pids = [...output.matchAll(/started \(pid (\d+)\)/g)].map((match) => Number(match[1]));
      started.push(...pids);
      expect(pids.filter(alive)).toEqual([]);
    } finally {
      blocker.close();
    }
  }, 180_000);

  // `npm start` as a user runs it, signalled the way a process manager or `kill` does: the signal
  // reaches one process, not the terminal's process group. Before, SIGINT to npm stopped nothing
  // and SIGTERM left the services running (the shell npm runs the script in did not pass it on).
  it.each([
    ["SIGINT", "npm"],
    ["SIGTERM", "npm"],
    ["SIGINT", "thinktank start"],
  ] as const)("npm start: %s to the %s process alone stops everything within 10 s", async (signal, target) => {
    const env = { ...process.env, THINKTANK_CONFIG: path.join(dir, "config.yaml"), GATEWAY_PORT: String(await freePort()), AGENT_PORT: String(await freePort()), THINKTANK_API_KEY: "" };
    const npm = spawn("npm", ["start"], { cwd: repositoryRoot(), env, stdio: ["ignore", "pipe", "pipe"] });
    started.push(npm.pid as number);
    const { lines, waitFor } = childLines(npm);
    const npmExited = new Promise<void>((resolve) => npm.on("close", () => resolve()));
    await waitFor((line) => line.startsWith("[start] ready:"), 120_000);
    const services = lines.flatMap((line) => /^\[start\] \w+ started \(pid (\d+)\)$/.exec(line)?.slice(1, 2) ?? []).map(Number);
    const startProcess = childrenOf(npm.pid as number);
    started.push(...services, ...startProcess);
    expect(services).toHaveLength(2);
    expect(startProcess).toHaveLength(1);

    const sent = Date.now();
    process.kill(target === "npm" ? (npm.pid as number) : (startProcess[0] as number), signal);
    await allGone([...services, ...startProcess], 10_000);
    await npmExited;
    expect(Date.now() - sent).toBeLessThan(10_000);
    expect(lines).toContain("[start] stopped");
  }, 180_000);

  it("refuses to start on a public address without an API key", async () => {
    const child = spawn(process.execPath, [cli, "start"], {
      cwd: dir,
      env: { ...process.env, THINKTANK_CONFIG: path.join(dir, "config.yaml"), GATEWAY_HOST: "0.0.0.0", THINKTANK_API_KEY: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    started.push(child.pid as number);
    let output = "";
    child.stderr.on("data", (chunk) => (output += String(chunk)));
    expect(await new Promise((resolve) => child.on("close", resolve))).toBe(1);
    expect(output).toContain("refusing to listen on 0.0.0.0 without an API key");
  }, 60_000);
});

import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { childLines, freePort, makeTempDir, repositoryRoot } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";

const cli = path.join(repositoryRoot(), "apps/cli/bin/thinktank.js");
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** Running (a zombie waiting for its new parent to reap it has exited: it counts as gone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone, as it should be
  }
}

async function healthy(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) })).ok;
  } catch {
    return false;
  }
}

// `thinktank start` gives both children an IPC channel; when the parent dies without a chance to
// stop them (SIGKILL), the channel disconnects and each child must stop on its own.
describe("the services of thinktank start", () => {
  it("stop when thinktank start is SIGKILLed (no orphans)", async () => {
    const { dir, cleanup } = makeTempDir("tt-start-orphan-");
    cleanups.push(cleanup);
    fs.writeFileSync(path.join(dir, "extensions_config.json"), '{"mcpServers": {}, "skills": {}, "plugins": {}, "tools": {}}\n');
    fs.mkdirSync(path.join(dir, "skills", "public"), { recursive: true });
    fs.writeFileSync(path.join(dir, "config.yaml"), "data_dir: data\nlog:\n  level: warn\nsandbox:\n  backend: local\n");
    const gatewayPort = await freePort();
    const agentPort = await freePort();
    const parent = spawn(process.execPath, [cli, "start"], {
      cwd: dir,
      env: { ...process.env, THINKTANK_CONFIG: path.join(dir, "config.yaml"), GATEWAY_PORT: String(gatewayPort), AGENT_PORT: String(agentPort), THINKTANK_API_KEY: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    cleanups.push(() => killQuietly(parent.pid as number));
    const output = childLines(parent);

    const pidOf = async (name: string): Promise<number> => Number(/\(pid (\d+)\)/.exec(await output.waitFor((line) => line.startsWith(`[start] ${name} started (pid `), 60_000))?.[1]);
    const pids = [await pidOf("gateway"), await pidOf("agent")];
    for (const pid of pids) cleanups.push(() => killQuietly(pid));
    // "ready" comes once both services told thinktank start, over their IPC channels, that they listen.
    await output.waitFor((line) => line.startsWith("[start] ready:"), 120_000);
    const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    const agentUrl = `http://127.0.0.1:${agentPort}`;
    expect(await healthy(gatewayUrl)).toBe(true);
    expect(await healthy(agentUrl)).toBe(true);
    expect(pids.every(alive)).toBe(true);

    parent.kill("SIGKILL");
    // "within a few seconds": generous for a loaded machine, far below anything but a real stop. The
    // services are not this process's children, so no exit event reaches it: /proc is polled.
    await expect.poll(() => pids.filter(alive), { timeout: 20_000, interval: 50, message: "the children to exit" }).toEqual([]);
    expect(await healthy(gatewayUrl)).toBe(false);
    expect(await healthy(agentUrl)).toBe(false);
  }, 180_000);
});

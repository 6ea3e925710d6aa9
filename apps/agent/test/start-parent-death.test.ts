import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { freePort, makeTempDir, repositoryRoot } from "@thinktank/testing";
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

async function waitFor(condition: () => Promise<boolean> | boolean, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
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
    const lines: string[] = [];
    readline.createInterface({ input: parent.stdout }).on("line", (line) => lines.push(line));
    readline.createInterface({ input: parent.stderr }).on("line", (line) => lines.push(line));

    const pidOf = (name: string): number | undefined => {
      const line = lines.find((candidate) => candidate.startsWith(`[start] ${name} started (pid `));
      return line ? Number(/\(pid (\d+)\)/.exec(line)?.[1]) : undefined;
    };
    await waitFor(() => pidOf("gateway") !== undefined && pidOf("agent") !== undefined, 60_000, () => `both services to start:\n${lines.join("\n")}`);
    const pids = [pidOf("gateway") as number, pidOf("agent") as number];
    for (const pid of pids) cleanups.push(() => killQuietly(pid));
    const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    const agentUrl = `http://127.0.0.1:${agentPort}`;
    await waitFor(async () => (await healthy(gatewayUrl)) && (await healthy(agentUrl)), 120_000, () => `both /healthz:\n${lines.join("\n")}`);
    expect(pids.every(alive)).toBe(true);

    parent.kill("SIGKILL");
    // "within a few seconds": generous for a loaded machine, far below anything but a real stop.
    await waitFor(() => pids.every((pid) => !alive(pid)), 20_000, () => `the children to exit (still alive: ${pids.filter(alive).join(", ")})`);
    expect(pids.filter(alive)).toEqual([]);
    expect(await healthy(gatewayUrl)).toBe(false);
    expect(await healthy(agentUrl)).toBe(false);
  }, 180_000);
});

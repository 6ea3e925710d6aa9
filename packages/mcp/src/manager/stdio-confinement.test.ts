import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { findExecutable, HostConfinement, type HostMechanism } from "@thinktank/core";
import { hostProbeScript, makeTempDir, needs, probeMcpServerScript, processesWithMarker, type HostProbeReport } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { McpManager } from "./mcp-manager.js";
import { waitFor } from "./testing/wait-for.js";

// A stdio MCP server runs confined on the host: a server that reports what it can see finds neither the
// service's secrets nor its processes nor its data folder, and whatever it started dies with it.
const searchPath = process.env.PATH ?? "/usr/bin:/bin";
const pythonOnPath = findExecutable("python3", searchPath);
const python = pythonOnPath ? execFileSync(pythonOnPath, ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim() : undefined;
const asRoot = process.getuid?.() === 0;
const secret = `service-secret-${crypto.randomUUID()}`;

let temp: { dir: string; cleanup: () => void };
let neighbour: ChildProcess | undefined;
const managers: McpManager[] = [];
beforeEach(() => {
  temp = makeTempDir("tt-mcp-confined-");
  fs.chmodSync(temp.dir, 0o755);
  // A process of the service's user that holds a secret in its environment, as the agent does.
  neighbour = spawn("sleep", ["300"], { env: { PATH: searchPath, THINKTANK_API_KEY: secret }, stdio: "ignore" });
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.close()));
  neighbour?.kill("SIGKILL");
  temp.cleanup();
});

const mechanisms: { mechanism: HostMechanism; available: boolean }[] = [
  { mechanism: "bubblewrap", available: true },
  { mechanism: "unshare", available: asRoot },
];

describe.each(mechanisms)("a stdio MCP server confined with $mechanism", ({ mechanism, available }) => {
  it.skipIf(!available || !python)("sees nothing of the service, keeps its stdio pipe, and its double-forked children die with it", mechanism === "bubblewrap" ? needs("bubblewrap") : {}, async () => {
    const data = path.join(temp.dir, "data");
    fs.mkdirSync(data, { mode: 0o700 });
    fs.writeFileSync(path.join(data, "threads.sqlite"), "rows");
    const probe = path.join(temp.dir, "probe.py");
    const server = path.join(temp.dir, "probe-server.mjs");
    fs.writeFileSync(probe, hostProbeScript);
    fs.writeFileSync(server, probeMcpServerScript);
    const marker = `181.${Date.now() % 1e9}${crypto.randomInt(1e6)}`;
    const hostConfinement = new HostConfinement({ hide: [data], mechanisms: [mechanism], searchPath });
    const manager = new McpManager(
      { mcp: { connect_timeout_ms: 30_000, call_timeout_ms: 30_000, retries: 0, retry_base_delay_ms: 10, catalog_dir: path.join(temp.dir, "catalog") }, env: { PATH: searchPath }, hostConfinement },
      { probe: { command: process.execPath, args: [server], env: { PROBE_SCRIPT: probe, PROBE_PYTHON: python as string, PROBE_LEAVE: marker } } },
    );
    managers.push(manager);
    const result = await manager.callTool("probe", "probe", { needle: secret, ptrace: [process.pid, neighbour?.pid], read: [data, path.join(data, "threads.sqlite")] });
    const report = result.structuredContent as unknown as HostProbeReport;
    expect(report.needleFoundIn).toEqual([]);
    expect(report.visiblePids).not.toContain(process.pid);
    expect(Object.values(report.ptrace)).not.toContain("attached");
    expect(report.reads[data]).toEqual({ ok: true, entries: [] });
    expect(report.reads[path.join(data, "threads.sqlite")]?.ok).toBe(false);
    // The server's own start-up child lives while it does, and goes with it.
    expect(processesWithMarker(marker)).toHaveLength(1);
    await manager.close();
    await waitFor("the server's children to die with it", () => processesWithMarker(marker).length === 0);
  });
});

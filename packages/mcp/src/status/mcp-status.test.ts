import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { McpManager } from "../manager/mcp-manager.js";
import { eraStdioEntry } from "../manager/testing/era-test-server.js";
import { testServerEntry } from "../manager/testing/test-server-entry.js";
import { waitFor } from "../manager/testing/wait-for.js";
import { liveServerState } from "./live-server-state.js";
import { McpStatusRecorder } from "./mcp-status-recorder.js";
import { processScope } from "./process-scope.js";
import { McpStatusReader, readMcpStatus, runningAgent } from "./read-mcp-status.js";
import { serverStateView } from "./server-state-view.js";
import type { McpStatusReport } from "./read-mcp-status.js";
import type { McpStatusFile, RecordedServer } from "./status-record.js";

let temp: { dir: string; cleanup: () => void };
const closers: (() => Promise<void>)[] = [];
beforeEach(() => {
  temp = makeTempDir("tt-mcp-status-");
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  temp.cleanup();
});

const statusDir = (): string => path.join(temp.dir, "mcp-status");
const hostEnv = { PATH: process.env.PATH, HOME: process.env.HOME };

function managerOf(entries: Parameters<McpManager["sync"]>[0]): McpManager {
  const manager = new McpManager({ mcp: { connect_timeout_ms: 20_000, call_timeout_ms: 20_000, retries: 0, retry_base_delay_ms: 10, catalog_dir: path.join(temp.dir, "catalog") }, env: hostEnv }, entries);
  closers.push(() => manager.close());
  return manager;
}

function recorderOf(manager: McpManager, replica?: string): McpStatusRecorder {
  const recorder = new McpStatusRecorder({ dir: statusDir(), manager, intervalMs: 50, heartbeatMs: 500, ...(replica ? { replica } : {}) });
  closers.push(() => recorder.stop());
  return recorder;
}

/** A record as an agent process writes it, for the reader's cases. */
function record(overrides: Partial<McpStatusFile>): McpStatusFile {
  const now = new Date().toISOString();
  return { format: 1, replica: "agent-x", pid: process.pid, host: "here", startedAt: now, heartbeatAt: now, heartbeatMs: 5000, servers: [], users: {}, ...overrides };
}

function writeRecord(file: McpStatusFile): void {
  fs.mkdirSync(statusDir(), { recursive: true });
  fs.writeFileSync(path.join(statusDir(), `${file.replica}.json`), JSON.stringify(file));
}

describe("the MCP status record", () => {
  it("records a server of neither MCP era as unavailable with PROTOCOL_UNSUPPORTED and the versions tried, shown as such for a caller", async () => {
    const manager = managerOf({ future: eraStdioEntry({ sdk: "v1", era: "neither" }) });
    await manager.connectAll({ once: true });
    const recorder = recorderOf(manager);
    await recorder.start();
    const report = await readMcpStatus(statusDir());
    const live = liveServerState(report, "future");
    expect(live).toMatchObject({ state: "unavailable", code: "PROTOCOL_UNSUPPORTED", versionsTried: ["2026-07-28 (server/discover)", "2025-11-25 (initialize)"], versionsOffered: ["2099-01-01"] });
    expect(serverStateView({ enabled: true, live })).toMatchObject({ status: "unavailable", code: "PROTOCOL_UNSUPPORTED", versions_tried: ["2026-07-28 (server/discover)", "2025-11-25 (initialize)"], reason: expect.stringMatching(/^PROTOCOL_UNSUPPORTED: /) });
  }, 60_000);

  it("records a working server (connected, tools, protocol version) and one that fails to start (unavailable, the reason, when), and marks a stop", async () => {
    const refuse = path.join(temp.dir, "refuse");
    fs.writeFileSync(refuse, "");
    const manager = managerOf({ ok: testServerEntry(), broken: testServerEntry({ TEST_SERVER_REFUSE_FILE: refuse }) });
    const before = new Date().toISOString();
    await manager.connectAll({ once: true });
    const recorder = recorderOf(manager);
    await recorder.start();
    expect(fs.statSync(statusDir()).mode & 0o777).toBe(0o700);
    expect(fs.statSync(recorder.file).mode & 0o777).toBe(0o600);

    const report = await readMcpStatus(statusDir());
    expect(report.agents).toEqual([expect.objectContaining({ replica: `agent-${process.pid}`, running: true })]);
    expect(liveServerState(report, "ok")).toMatchObject({ state: "connected", toolCount: expect.any(Number), toolsFrom: "live", protocolVersion: "2025-11-25" });
    const broken = liveServerState(report, "broken");
    expect(broken).toMatchObject({ state: "unavailable", reason: expect.stringContaining("refusing to start"), lastError: expect.stringContaining("refusing to start") });
    expect(broken?.lastErrorAt && broken.lastErrorAt >= before).toBe(true);
    expect(liveServerState(report, "nobody-configured-this")).toBeUndefined();

    // A state that changes is written within the interval.
    fs.rmSync(refuse);
    await manager.connect("broken");
    await waitFor("the recovered server in the record", async () => liveServerState(await readMcpStatus(statusDir()), "broken")?.state === "connected");
    // Recovered: the time of the last error stays.
    expect(liveServerState(await readMcpStatus(statusDir()), "broken")).toMatchObject({ lastErrorAt: broken?.lastErrorAt });

    await recorder.stop();
    const stopped = await readMcpStatus(statusDir());
    expect(stopped.running).toEqual([]);
    expect(liveServerState(stopped, "ok")).toEqual({ state: "unknown", reason: expect.stringMatching(/agent server agent-\d+ .* stopped at .*no agent server runs now/) });
  }, 60_000);

  it("an agent whose process ended without stopping is not running, at once (same kernel and pid namespace); a silent one after its heartbeat's grace", async () => {
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    const pid = child.pid as number;
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    writeRecord(record({ replica: "crashed", pid, ...(processScope() ? { processScope: processScope() as string } : {}), servers: [{ name: "ok", state: "connected" }] }));
    const report = await readMcpStatus(statusDir());
    expect(report.running).toEqual([]);
    expect(liveServerState(report, "ok")).toEqual({ state: "unknown", reason: expect.stringContaining(`the agent server crashed (pid ${pid} on here) is not running (it ended without stopping`) });

    // Another container or host: only the heartbeat tells.
    const old = new Date(Date.now() - 60_000).toISOString();
    fs.rmSync(path.join(statusDir(), "crashed.json"));
    writeRecord(record({ replica: "elsewhere", processScope: "another-kernel/pid:[1]", heartbeatAt: old, servers: [{ name: "ok", state: "connected" }] }));
    expect(liveServerState(await readMcpStatus(statusDir()), "ok")).toEqual({ state: "unknown", reason: expect.stringMatching(/has not reported since .* \(60 s ago\): it stopped or hangs/) });
    writeRecord(record({ replica: "elsewhere", processScope: "another-kernel/pid:[1]", servers: [{ name: "ok", state: "connected" }] }));
    expect(liveServerState(await readMcpStatus(statusDir()), "ok")).toMatchObject({ state: "connected" });
  }, 30_000);

  it("the gateway's reader reads the files at most every maxAgeMs, but sees a process die at once, and its last word", async () => {
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    const scope = processScope();
    const alive = record({ replica: "agent-c", pid: child.pid as number, ...(scope ? { processScope: scope } : {}), servers: [{ name: "ok", state: "connected" }] });
    writeRecord(alive);
    const reader = new McpStatusReader(statusDir(), { maxAgeMs: 60_000 });
    expect(liveServerState(await reader.read(), "ok")?.state).toBe("connected");
    // A new state within maxAgeMs is not read yet...
    writeRecord({ ...alive, servers: [{ name: "ok", state: "unavailable", reason: "gone" }] });
    expect(liveServerState(await reader.read(), "ok")?.state).toBe("connected");
    // ...but the process stopping (its last record written, then gone) is, at once.
    writeRecord({ ...alive, stoppedAt: new Date().toISOString() });
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    expect(liveServerState(await reader.read(), "ok")).toEqual({ state: "unknown", reason: expect.stringContaining("the agent server agent-c") });
    expect((await reader.read()).agents).toEqual([expect.objectContaining({ running: false, ended: "stopped" })]);
  });

  it("no folder, or no record: unknown, saying no agent has reported; a starting recorder removes the records of agents that are gone", async () => {
    expect(liveServerState(await readMcpStatus(statusDir()), "ok")).toEqual({ state: "unknown", reason: expect.stringContaining("no agent server has reported") });
    writeRecord(record({ replica: "stopped-one", stoppedAt: new Date().toISOString() }));
    writeRecord(record({ replica: "silent-one", processScope: "elsewhere", heartbeatAt: new Date(Date.now() - 7_200_000).toISOString() }));
    writeRecord(record({ replica: "running-one", processScope: "elsewhere" }));
    const recorder = recorderOf(managerOf({}), "me");
    await recorder.start();
    expect(fs.readdirSync(statusDir()).sort()).toEqual(["me.json", "running-one.json"]);
  });

  it("a user sees their own sessions' states and the shared servers', never the operator's session of a per-user server or another user's", () => {
    const crm: RecordedServer = { name: "crm", transport: "http", state: "connected", toolCount: 3, perUser: true };
    const report: McpStatusReport = {
      agents: [],
      running: [
        runningAgent(record({
          servers: [crm, { name: "files", transport: "stdio", state: "connected", toolCount: 2 }],
          users: { usr_a: [{ name: "crm", transport: "http", state: "needs_auth", reason: "needs sign-in: not signed in" }, { name: "~notes", transport: "http", state: "connected", toolCount: 1 }] },
        })),
      ],
    };
    expect(liveServerState(report, "crm")).toMatchObject({ state: "connected", toolCount: 3 });
    expect(liveServerState(report, "crm", "usr_a")).toMatchObject({ state: "needs_auth" });
    expect(liveServerState(report, "crm", "usr_b")).toMatchObject({ state: "idle", reason: expect.stringContaining("no session of yours yet") });
    expect(liveServerState(report, "crm", "usr_b")?.toolCount).toBeUndefined();
    expect(liveServerState(report, "files", "usr_b")).toMatchObject({ state: "connected", toolCount: 2 });
    expect(liveServerState(report, "~notes", "usr_a")).toMatchObject({ state: "connected" });
    expect(liveServerState(report, "~notes", "usr_b")).toBeUndefined();
    expect(liveServerState(report, "~notes")).toBeUndefined();
  });

  it("replicas that disagree: the state that needs attention, which replica said it, and each one's", () => {
    const report: McpStatusReport = {
      agents: [],
      running: [
        runningAgent(record({ replica: "agent-a", servers: [{ name: "files", state: "connected", toolCount: 2, protocolVersion: "2025-11-25" }] })),
        runningAgent(record({ replica: "agent-b", servers: [{ name: "files", state: "unavailable", reason: "the server process exited", lastErrorAt: "2030-01-01T00:00:00.000Z", lastError: "the server process exited" }] })),
      ],
    };
    expect(liveServerState(report, "files")).toMatchObject({
      state: "unavailable",
      reason: "on agent-b: the server process exited",
      toolCount: 2,
      protocolVersion: "2025-11-25",
      lastErrorAt: "2030-01-01T00:00:00.000Z",
      replicas: [
        { replica: "agent-a", state: "connected" },
        { replica: "agent-b", state: "unavailable", reason: "the server process exited" },
      ],
    });
  });
});

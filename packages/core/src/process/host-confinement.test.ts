import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { hostProbeScript, makeTempDir, needs, processesWithMarker, type HostProbeReport, type HostProbeRequest } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { HostMechanism } from "./confine-host-program.js";
import { findExecutable } from "./find-executable.js";
import { HostConfinement, type ConfineResult } from "./host-confinement.js";

const asRoot = process.getuid?.() === 0;
const python = findExecutable("python3", process.env.PATH);
const searchPath = process.env.PATH ?? "/usr/bin:/bin";

let temp: { dir: string; cleanup: () => void };
let neighbour: ChildProcess | undefined;
const secret = `secret-${crypto.randomUUID()}`;

beforeEach(() => {
  temp = makeTempDir("tt-confine-");
  // A host process of this user holding a secret in its environment: what the service is to its programs.
  neighbour = spawn("sleep", ["300"], { env: { PATH: searchPath, THINKTANK_API_KEY: secret }, stdio: "ignore" });
});
afterEach(() => {
  neighbour?.kill("SIGKILL");
  temp.cleanup();
});

/** A data folder with a database, an extensions file, and a file outside both a program may read. */
function layout(): { data: string; extensions: string; outside: string } {
  const data = path.join(temp.dir, "data");
  fs.mkdirSync(data, { mode: 0o700 });
  fs.writeFileSync(path.join(data, "threads.sqlite"), "rows", { mode: 0o600 });
  const extensions = path.join(temp.dir, "extensions_config.json");
  fs.writeFileSync(extensions, '{"mcpServers":{"x":{"env":{"TOKEN":"tok"}}}}', { mode: 0o600 });
  const outside = path.join(temp.dir, "notes.txt");
  fs.writeFileSync(outside, "host file", { mode: 0o644 });
  fs.chmodSync(temp.dir, 0o755);
  return { data, extensions, outside };
}

/** Spawns what confine() gave, feeds `input`, and answers its exit code and output. */
function run(line: ConfineResult, input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  if (!line.ok) throw line.error;
  return new Promise((resolve, reject) => {
    const child = spawn(line.command, [...line.args], { cwd: line.cwd, env: line.env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

async function probe(confinement: HostConfinement, request: HostProbeRequest, cwd: string, programPath = searchPath): Promise<HostProbeReport> {
  const script = path.join(temp.dir, "probe.py");
  fs.writeFileSync(script, hostProbeScript, { mode: 0o644 });
  // The interpreter itself, not a pyenv shim (a script that adds variables of its own).
  const interpreter = execFileSync(findExecutable("python3", programPath) ?? "python3", ["-c", "import sys; print(sys.executable)"], { env: { PATH: programPath }, encoding: "utf8" }).trim();
  const answer = await run(confinement.confine({ command: interpreter, args: [script], env: { PATH: programPath, ONLY: "this" }, cwd }), `${JSON.stringify(request)}\n`);
  if (answer.code !== 0) throw new Error(`the probe failed (${answer.code}): ${answer.stderr}`);
  return JSON.parse(answer.stdout) as HostProbeReport;
}

const sleepMarker = (): string => `181.${String(Date.now() % 1e9).padStart(9, "0")}${String(Math.floor(Math.random() * 1e6)).padStart(6, "0")}`;

const pidNamespaces: { mechanism: HostMechanism; available: boolean; why: string }[] = [
  { mechanism: "bubblewrap", available: true, why: "" },
  { mechanism: "unshare", available: asRoot, why: "unshare confines only as root" },
];

describe.each(pidNamespaces)("HostConfinement with $mechanism", ({ mechanism, available }) => {
  const options = mechanism === "bubblewrap" ? needs("bubblewrap") : {};
  it.skipIf(!available || !python)("hides the service's processes, environment, memory and data folder, and keeps the host's files", options, async () => {
    const { data, extensions, outside } = layout();
    const confinement = new HostConfinement({ hide: [data, extensions], mechanisms: [mechanism], searchPath });
    expect(confinement.info).toMatchObject({ isolation: "pid-namespace", mechanism });
    const report = await probe(confinement, { needle: secret, ptrace: [process.pid, neighbour?.pid as number], read: [data, path.join(data, "threads.sqlite"), extensions, outside] }, temp.dir);
    expect(report.needleFoundIn).toEqual([]);
    // Its own namespace: neither this process nor the neighbour is there to read or trace.
    expect(report.visiblePids).not.toContain(process.pid);
    expect(report.visiblePids.length).toBeLessThan(6);
    expect(Object.values(report.ptrace).every((result) => result !== "attached")).toBe(true);
    expect(report.reads[data]).toEqual({ ok: true, entries: [] });
    expect(report.reads[path.join(data, "threads.sqlite")]?.ok).toBe(false);
    expect(report.reads[extensions]).toMatchObject({ bytes: 0 });
    expect(report.reads[outside]).toEqual({ ok: true, bytes: 9 });
    // (Python itself adds LC_CTYPE under a C locale.)
    const { LC_CTYPE: _python, ...env } = report.env;
    expect(env).toEqual({ PATH: searchPath, ONLY: "this" });
    expect(report.noNewPrivs).toBe("1");
    if (asRoot) expect(Number.parseInt(report.capEff, 16)).toBe(0);
  });

  it.skipIf(!available || !python)("hides what hide() adds later (the sandbox's runtime folder, made once the service runs) from programs started after it", options, async () => {
    const confinement = new HostConfinement({ mechanisms: [mechanism], searchPath });
    const runtime = path.join(temp.dir, "sandbox-runtime");
    fs.mkdirSync(path.join(runtime, "workers", "w1"), { recursive: true, mode: 0o755 });
    fs.writeFileSync(path.join(runtime, "workers", "w1", "egress.sock"), "");
    expect((await probe(confinement, { needle: secret, read: [runtime] }, temp.dir)).reads[runtime]).toEqual({ ok: true, entries: ["workers"] });
    confinement.hide(runtime);
    expect((await probe(confinement, { needle: secret, read: [runtime] }, temp.dir)).reads[runtime]).toEqual({ ok: true, entries: [] });
  });

  it.skipIf(!available || !python)("ends whole with its first process: a setsid double fork is gone when the program exits", options, async () => {
    const confinement = new HostConfinement({ mechanisms: [mechanism], searchPath });
    const marker = sleepMarker();
    const report = await probe(confinement, { needle: secret, leave: marker }, temp.dir);
    expect(report.pid).toBeLessThan(100);
    await vi.waitFor(() => expect(processesWithMarker(marker)).toEqual([]), { timeout: 10_000, interval: 50 });
  });

  it.skipIf(!available)("a TERM or INT sent to the process the caller started ends the program at once (unshare passes it on, so it ends gracefully)", options, async () => {
    const confinement = new HostConfinement({ mechanisms: [mechanism], searchPath });
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      const line = confinement.confine({ command: "sh", args: ["-c", 'trap "echo graceful; exit 7" TERM INT; echo ready; while :; do sleep 30 & wait $!; done'], env: { PATH: searchPath }, cwd: temp.dir });
      if (!line.ok) throw line.error;
      const child = spawn(line.command, [...line.args], { cwd: line.cwd, env: line.env, stdio: ["pipe", "pipe", "pipe"] });
      let stdout = "";
      const ready = new Promise<void>((resolve) => child.stdout.on("data", (chunk: Buffer) => ((stdout += chunk.toString()), stdout.includes("ready") && resolve())));
      const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
      await ready;
      child.kill(signal);
      // bwrap dies of the signal and its namespace with it; unshare's wrapper passes it on. (Before,
      // unshare's --fork parent ignored TERM and INT: the program ran on until a KILL.)
      expect(await closed, signal).toBe(mechanism === "unshare" ? 7 : null);
      if (mechanism === "unshare") expect(stdout).toContain("graceful");
    }
  });

  it.skipIf(!available)("passes stdin and stdout through untouched, and a failing start says why before the program runs", options, async () => {
    const confinement = new HostConfinement({ hide: [path.join(temp.dir, "hidden")], mechanisms: [mechanism], searchPath });
    fs.mkdirSync(path.join(temp.dir, "hidden"));
    const payload = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize" })}\n${"x".repeat(70_000)}\n`;
    expect(await run(confinement.confine({ command: "cat", args: [], env: { PATH: searchPath }, cwd: temp.dir }), payload)).toMatchObject({ code: 0, stdout: payload });
    // A working folder inside a hidden one is not reachable: nothing runs.
    const inside = path.join(temp.dir, "hidden", "work");
    fs.mkdirSync(inside);
    const refused = await run(confinement.confine({ command: "sh", args: ["-c", "echo ran"], env: { PATH: searchPath }, cwd: inside }), "");
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toBe("");
  });
});

describe("HostConfinement without a pid namespace", () => {
  // The dedicated user cannot enter root's home, where a pyenv python may live: the system one.
  const systemPath = "/usr/local/bin:/usr/bin:/bin";
  it.skipIf(!asRoot || !findExecutable("python3", systemPath))("runs programs as a dedicated user (root only), which reads neither the service's environment nor a 0700 data folder", async () => {
    const { data, outside } = layout();
    const confinement = new HostConfinement({ hide: [data], mechanisms: ["dedicated-user"], searchPath });
    expect(confinement.info).toMatchObject({ isolation: "dedicated-user", mechanism: "dedicated-user" });
    const work = path.join(temp.dir, "work");
    fs.mkdirSync(work, { mode: 0o700 });
    confinement.handOver(work);
    const report = await probe(confinement, { needle: secret, ptrace: [process.pid], read: [data, outside] }, work, systemPath);
    expect(report.uid).toBe(65534);
    expect(report.needleFoundIn).toEqual([]);
    expect(report.ptrace[String(process.pid)]).not.toBe("attached");
    expect(report.reads[data]?.ok).toBe(false);
    expect(report.reads[outside]?.ok).toBe(true);
    expect(report.noNewPrivs).toBe("1");
  });

  it("says so when nothing confines programs (forced here), and then runs them as they are", () => {
    const confinement = new HostConfinement({ mechanisms: [], searchPath });
    expect(confinement.info).toEqual({ isolation: "none", reason: expect.stringMatching(/turned off/) });
    const line = confinement.confine({ command: "sh", args: ["-c", "true"], env: { PATH: searchPath }, cwd: temp.dir });
    expect(line).toMatchObject({ ok: true, args: ["-c", "true"], env: { PATH: searchPath }, cwd: temp.dir, isolation: { isolation: "none" } });
    expect(line.ok && path.basename(line.command)).toBe("sh");
  });

  it("runs unconfined where there are no pid namespaces (macOS), saying so without host paths", () => {
    const info = new HostConfinement({ platform: "darwin", searchPath: "/opt/secret-tools/bin" }).info;
    expect(info).toEqual({ isolation: "none", reason: expect.stringContaining("darwin has no pid namespaces") });
    expect(JSON.stringify(info)).not.toContain("/opt/secret-tools");
  });

  it("fails a command that is not there as spawn would (ENOENT), starting nothing", () => {
    const line = new HostConfinement({ searchPath }).confine({ command: "no-such-program-here", args: [], env: { PATH: searchPath } });
    expect(line).toMatchObject({ ok: false, error: { code: "ENOENT", syscall: "spawn no-such-program-here", path: "no-such-program-here" } });
  });
});

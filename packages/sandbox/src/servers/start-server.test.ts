import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { needs } from "@thinktank/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { processesWithMarker, sandboxFixture, type SandboxFixture } from "../test-support/sandbox-fixture.js";
import type { SandboxServerRequest } from "./server-types.js";

// A long-lived server in the sandbox, spawned as the MCP SDK spawns it (stdin and stdout as pipes): it
// gets exactly its entry's environment (through a file: the value is on no command line), a home that
// outlives it, no wall-clock limit, and nothing it started survives it.
const serverSource = String.raw`
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
if (process.env.LEAVE) spawn("/bin/sh", ["-c", "(setsid sleep " + process.env.LEAVE + " >/dev/null 2>&1 &)"], { stdio: "ignore" });
const visits = path.join(process.env.HOME, "visits");
const before = fs.existsSync(visits) ? fs.readFileSync(visits, "utf8") : "";
fs.appendFileSync(visits, "x");
let writable = true;
try { fs.writeFileSync(path.join(process.cwd(), "planted"), "x"); } catch { writable = false; }
let peek;
if (process.env.PEEK) try { peek = fs.readdirSync(process.env.PEEK); } catch (error) { peek = error.code; }
process.stdout.write(JSON.stringify({ env: process.env, cwd: process.cwd(), before, writable, uid: process.getuid(), pid: process.pid, peek }) + "\n");
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
`;

let fixture: SandboxFixture | undefined;
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  await fixture?.cleanup();
  fixture = undefined;
});

function serverRequest(made: SandboxFixture, env: Record<string, string>): SandboxServerRequest {
  const cwd = path.join(made.root, "server");
  fs.mkdirSync(cwd, { recursive: true });
  fs.writeFileSync(path.join(cwd, "server.cjs"), serverSource);
  return { command: "node", args: ["server.cjs"], env, cwd, homeDir: path.join(made.root, "home"), limits: { memoryMb: 512, maxProcesses: 64 } };
}

/** Spawns a launch line and reads the server's first line. */
async function start(made: SandboxFixture, request: SandboxServerRequest): Promise<{ child: ChildProcessWithoutNullStreams; first: Record<string, unknown>; release: () => void }> {
  const launch = await made.executor.startServer(request);
  if (!launch.ok) throw new Error(`${launch.code}: ${launch.message}`);
  const child = spawn(launch.command, [...launch.args], { env: launch.env, cwd: launch.cwd, stdio: ["pipe", "pipe", "pipe"] });
  children.push(child);
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).once("line", resolve);
    child.once("close", (code) => reject(new Error(`the server exited (${code}): ${stderr}`)));
  });
  child.once("close", () => launch.release());
  return { child, first: JSON.parse(line) as Record<string, unknown>, release: launch.release };
}

describe("a server in the bubblewrap sandbox", () => {
  it("gets exactly its environment (on no command line), a home that outlives it, a read-only cwd, and takes its children with it", needs("bubblewrap"), async () => {
    fixture = sandboxFixture();
    const secret = `server-secret-${crypto.randomUUID()}`;
    const marker = `181.${Date.now() % 1e9}${crypto.randomInt(1e6)}`;
    const request = serverRequest(fixture, { API_TOKEN: secret, LEAVE: marker });
    const { child, first } = await start(fixture, request);
    const env = first.env as Record<string, string>;
    expect(env.API_TOKEN).toBe(secret);
    expect(Object.keys(env).sort()).toEqual(["API_TOKEN", "HOME", "LANG", "LEAVE", "PATH", "TMPDIR", "npm_config_prefer_offline", "npm_config_update_notifier"]);
    expect(env.HOME).toBe("/mnt/user-data/workspace");
    expect(first).toMatchObject({ cwd: request.cwd, before: "", writable: false, uid: 1000 });
    // Its pid namespace: the host's processes are not its.
    expect(first.pid).toBeLessThan(20);
    // The secret reached it through a file: no process's command line holds it.
    const commandLines = fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).map((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
      } catch {
        return "";
      }
    });
    expect(commandLines.some((line) => line.includes(secret))).toBe(false);
    // The child it left at start (started in the background: waited for).
    await vi.waitFor(() => expect(processesWithMarker(marker)).toHaveLength(1), { timeout: 10_000, interval: 20 });
    // Stopped as the MCP SDK stops it: SIGTERM to the process it spawned.
    child.kill("SIGTERM");
    await vi.waitFor(() => expect(processesWithMarker(marker)).toEqual([]), { timeout: 10_000, interval: 50 });
    await vi.waitFor(() => expect(fs.readdirSync(path.join(fixture?.runtimeDir ?? "", "workers")).filter((name) => name.includes("server"))).toEqual([]), { timeout: 10_000, interval: 50 });

    // A second start finds what the first left in its home.
    const second = await start(fixture, request);
    expect(second.first.before).toBe("x");
    second.child.stdin.end();
  });

  it("hides the executor's own folder (other sandboxes' sockets) from a server whose cwd holds it", needs("bubblewrap"), async () => {
    fixture = sandboxFixture();
    const request = serverRequest(fixture, { PEEK: fixture.runtimeDir });
    const { child, first } = await start(fixture, { ...request, cwd: fixture.root, args: ["server/server.cjs"] });
    expect(fs.readdirSync(fixture.runtimeDir).length).toBeGreaterThan(0);
    expect(first.peek).toEqual([]);
    child.stdin.end();
  });

  it("refuses a network pattern that does not parse and limits below what a server needs", needs("bubblewrap"), async () => {
    fixture = sandboxFixture();
    const request = serverRequest(fixture, {});
    expect(await fixture.executor.startServer({ ...request, network: ["http://api.github.com/"] })).toMatchObject({ ok: false, code: "VALIDATION_FAILED", message: expect.stringMatching(/^network: /) });
    expect(await fixture.executor.startServer({ ...request, limits: { memoryMb: 8, maxProcesses: 64 } })).toMatchObject({ ok: false, code: "VALIDATION_FAILED", message: expect.stringMatching(/limits\.memoryMb/) });
  });
});

describe("a server on the other backends", () => {
  it.each(["deno", "local"] as const)("is unavailable on %s with the reason, and nothing starts", async (backend) => {
    fixture = sandboxFixture({ backend });
    const request = serverRequest(fixture, {});
    const launch = await fixture.executor.startServer(request);
    expect(launch).toMatchObject({ ok: false, code: "SANDBOX_UNAVAILABLE", message: expect.stringContaining(backend) });
    expect(launch.ok ? "" : launch.message).toMatch(/never runs on the host instead/);
    expect(fs.existsSync(request.homeDir)).toBe(false);
  });
});

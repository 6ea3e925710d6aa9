import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { findExecutable, HostConfinement } from "@thinktank/core";
import { hostProbeScript, makeTempDir, startGitHttpServer, type GitHttpServer, type HostProbeReport } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultFetchOptions } from "./fetch-options.js";
import { fetchGitTree } from "./git-fetch.js";

// git runs confined like every program the service starts: made observable by a `git` first on its
// PATH that runs the host probe, then the real git. The fetch works; the probe saw nothing of the service.
const searchPath = process.env.PATH ?? "/usr/bin:/bin";
const realGit = findExecutable("git", searchPath);
const pythonOnPath = findExecutable("python3", searchPath);
const python = pythonOnPath ? execFileSync(pythonOnPath, ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim() : undefined;
const isolation = new HostConfinement({ searchPath }).info.isolation;
const secret = `service-secret-${crypto.randomUUID()}`;

let temp: { dir: string; cleanup: () => void };
let server: GitHttpServer;
let neighbour: ChildProcess;
beforeAll(async () => {
  temp = makeTempDir("tt-git-confined-");
  fs.chmodSync(temp.dir, 0o755);
  server = await startGitHttpServer(path.join(temp.dir, "server"));
  neighbour = spawn("sleep", ["300"], { env: { PATH: searchPath, THINKTANK_API_KEY: secret }, stdio: "ignore" });
});
afterAll(async () => {
  neighbour.kill("SIGKILL");
  await server.close();
  temp.cleanup();
});

describe.skipIf(isolation !== "pid-namespace" || !realGit || !python)("git fetches, confined", () => {
  it("fetch as before, while git sees neither the service's environment, its processes nor its data folder", async () => {
    const data = path.join(temp.dir, "data");
    fs.mkdirSync(data, { mode: 0o700 });
    fs.writeFileSync(path.join(data, "threads.sqlite"), "rows");
    const bin = path.join(temp.dir, "bin");
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(temp.dir, "probe.py"), hostProbeScript);
    const request = JSON.stringify({ needle: secret, ptrace: [process.pid, neighbour.pid], read: [data] });
    const reports = path.join(temp.dir, "reports");
    fs.mkdirSync(reports);
    fs.writeFileSync(path.join(bin, "git"), `#!/bin/sh\necho '${request}' | ${python} ${path.join(temp.dir, "probe.py")} > "$(mktemp -p ${reports})"\nexec ${realGit} "$@"\n`, { mode: 0o755 });
    const commit = server.commit("team/tools", { "README.md": "hello" });
    const hostConfinement = new HostConfinement({ hide: [data], searchPath });
    const options = { ...defaultFetchOptions, allowHttp: true, env: { PATH: `${bin}:${searchPath}` }, hostConfinement };
    const fetched = await fetchGitTree({ url: `${server.url}/team/tools.git`, destination: path.join(temp.dir, "out"), workParent: temp.dir }, options);
    expect(fetched.commit).toBe(commit);
    expect(fs.readFileSync(path.join(temp.dir, "out", "README.md"), "utf8")).toBe("hello");
    const seen = fs.readdirSync(reports).map((name) => JSON.parse(fs.readFileSync(path.join(reports, name), "utf8")) as HostProbeReport);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    for (const report of seen) {
      expect(report.needleFoundIn).toEqual([]);
      expect(report.visiblePids).not.toContain(process.pid);
      expect(Object.values(report.ptrace)).not.toContain("attached");
      expect(report.reads[data]).toEqual({ ok: true, entries: [] });
    }
  });
});

import fs from "node:fs";
import path from "node:path";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { discoverHost, type HostLayout } from "../host/discover-host.js";
import { serverLayout } from "./server-layout.js";
import type { SandboxServerRequest } from "./server-types.js";

const searchPath = process.env.PATH ?? "/usr/bin:/bin";
let host: HostLayout;
let temp: { dir: string; cleanup: () => void };

beforeAll(async () => {
  host = await discoverHost({ searchPath, bwrapCommand: "bwrap", nodePath: process.execPath });
});
beforeEach(() => {
  temp = makeTempDir("tt-server-layout-");
});
afterEach(() => temp.cleanup());

const request = (fields: Partial<SandboxServerRequest>): SandboxServerRequest => ({
  command: "node",
  args: ["server.js"],
  env: {},
  homeDir: path.join(temp.dir, "home"),
  limits: { memoryMb: 1024, maxProcesses: 64 },
  ...fields,
});

describe("serverLayout", () => {
  it("mounts the cwd read-only at its own path with the hidden paths in it covered, and starts there", () => {
    const cwd = path.join(temp.dir, "project");
    fs.mkdirSync(path.join(cwd, "data"), { recursive: true });
    fs.writeFileSync(path.join(cwd, "extensions_config.json"), "{}");
    fs.writeFileSync(path.join(cwd, "data", "threads.sqlite"), "rows");
    fs.mkdirSync(path.join(cwd, "data", "logs"));
    const hide = [path.join(cwd, "data", "threads.sqlite"), path.join(cwd, "data", "logs"), path.join(cwd, "data"), path.join(cwd, "extensions_config.json"), path.join(temp.dir, "missing")];
    const layout = serverLayout(request({ cwd, hide }), host, undefined, searchPath);
    expect(layout).toMatchObject({ ok: true, mounts: [{ hostPath: cwd, sandboxPath: cwd }], chdir: cwd, program: ["node", "server.js"] });
    if (!layout.ok) return;
    expect(layout.mounts[0]?.writable).toBeUndefined();
    // What lies inside a covered folder goes with it (nothing to bind over in an empty tmpfs).
    expect(layout.covers).toEqual({ folders: [path.join(cwd, "data")], files: [path.join(cwd, "extensions_config.json")] });
    expect(layout.searchPath.split(":").slice(-3)).toEqual(["/usr/local/bin", "/usr/bin", "/bin"]);
  });

  it("refuses a cwd inside a hidden folder, the root, one of the sandbox's own folders, or one that does not exist", () => {
    const data = path.join(temp.dir, "data");
    fs.mkdirSync(path.join(data, "plugins"), { recursive: true });
    expect(serverLayout(request({ cwd: path.join(data, "plugins"), hide: [data] }), host, undefined, searchPath)).toMatchObject({ ok: false, message: expect.stringMatching(/inside a folder no program the service starts may see/) });
    expect(serverLayout(request({ cwd: "/" }), host, undefined, searchPath)).toMatchObject({ ok: false, message: expect.stringMatching(/root folder/) });
    expect(serverLayout(request({ cwd: "/proc/self" }), host, undefined, searchPath)).toMatchObject({ ok: false });
    // All of a shared temporary folder (other programs' files and sockets) is no server's working folder.
    expect(serverLayout(request({ cwd: "/tmp" }), host, undefined, searchPath)).toMatchObject({ ok: false, message: expect.stringMatching(/temporary folder every program shares/) });
    expect(serverLayout(request({ cwd: path.join(temp.dir, "nowhere") }), host, undefined, searchPath)).toMatchObject({ ok: false, message: expect.stringMatching(/does not exist/) });
  });

  it("finds a command that only the host's search path has, and mounts its folder", () => {
    const bin = path.join(temp.dir, "tools", "bin");
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, "my-mcp-server"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    const layout = serverLayout(request({ command: "my-mcp-server", args: [] }), host, undefined, `${bin}:${searchPath}`);
    expect(layout).toMatchObject({ ok: true, program: ["my-mcp-server"] });
    if (!layout.ok) return;
    expect(layout.binds).toContain(bin);
    expect(layout.searchPath.split(":")[0]).toBe(bin);
    expect(serverLayout(request({ command: "no-such-mcp-server" }), host, undefined, searchPath)).toMatchObject({ ok: false, message: expect.stringMatching(/not found/) });
  });

  it("takes a command path only inside what the sandbox sees, and a relative one only with a cwd", () => {
    const cwd = path.join(temp.dir, "project");
    fs.mkdirSync(cwd);
    fs.writeFileSync(path.join(cwd, "serve"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    expect(serverLayout(request({ command: "./serve", cwd }), host, undefined, searchPath)).toMatchObject({ ok: true, program: ["./serve", "server.js"] });
    expect(serverLayout(request({ command: path.join(cwd, "serve") }), host, undefined, searchPath)).toMatchObject({ ok: false, message: expect.stringMatching(/outside what its sandbox sees/) });
    expect(serverLayout(request({ command: "./serve" }), host, undefined, searchPath)).toMatchObject({ ok: false, message: expect.stringMatching(/relative path/) });
    expect(serverLayout(request({ command: process.execPath }), host, undefined, searchPath)).toMatchObject({ ok: true });
  });

  it("refuses an environment variable a shell cannot export", () => {
    expect(serverLayout(request({ env: { "npm_config_//registry:_authToken": "x" } }), host, undefined, searchPath)).toMatchObject({ ok: false, message: expect.stringMatching(/not a variable name/) });
  });
});

// docker-compose.yml runs both services as uid 1000 (THINKTANK_UID) on THINKTANK_HOME mounted at
// /srv/thinktank. A folder owned by another uid made the agent crash-loop on
// `EACCES: permission denied, mkdir '/srv/thinktank/.thinktank'`. Here the real processes, started
// as another uid than the folder's owner (as root: uid 1000 on a folder of uid 1001), stop at once
// with DATA_DIR_NOT_WRITABLE and what to set.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { childNodeOptions, makeTempDir, nodeArgsFor, repositoryRoot } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const root = repositoryRoot();
const asRoot = process.getuid?.() === 0;
/** As root, why uid 1000 cannot run this checkout (a clone under a 0700 folder), or undefined when it can. */
const otherUidBlocked = ((): string | undefined => {
  if (!asRoot) return undefined;
  const probe = spawnSync(process.execPath, ["-e", `require("fs").accessSync(${JSON.stringify(path.join(root, "apps/agent/package.json"))})`], { uid: 1000, gid: 1000, encoding: "utf8" });
  return probe.status === 0 ? undefined : `uid 1000 cannot read ${root}: ${(probe.error?.message ?? probe.stderr).trim().split("\n")[0]}`;
})();
let temp: { dir: string; cleanup: () => void };
let home: string;

beforeEach(() => {
  temp = makeTempDir("tt-data-owner-");
  fs.chmodSync(temp.dir, 0o755);
  home = path.join(temp.dir, "srv-thinktank");
  fs.mkdirSync(home, { mode: 0o755 });
  fs.writeFileSync(path.join(home, "config.yaml"), "log:\n  level: warn\nsandbox:\n  backend: deno\n", { mode: 0o644 });
  fs.writeFileSync(path.join(home, "extensions_config.json"), '{"mcpServers": {}, "skills": {}, "plugins": {}, "tools": {}}\n', { mode: 0o644 });
  // As root the folder belongs to uid 1001 and the services run as 1000; otherwise our own folder, not writable by mode.
  if (asRoot) fs.chownSync(home, 1001, 1001);
  else fs.chmodSync(home, 0o555);
});
afterEach(() => {
  if (!asRoot) fs.chmodSync(home, 0o755);
  temp.cleanup();
});

/**
 * Runs a service until it exits: node with `args`, as the container would (as root: uid 1000, not the
 * folder's 1001), or `command` with `args` as this process (`{ command }`).
 */
function runToExit(args: string[], options: { command?: string } = {}): Promise<{ code: number | null; output: string }> {
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: temp.dir, NODE_OPTIONS: childNodeOptions(), THINKTANK_CONFIG: path.join(home, "config.yaml"), GATEWAY_PORT: "0", AGENT_PORT: "0" };
  const ids = asRoot && !options.command ? { uid: 1000, gid: 1000 } : {};
  const child = spawn(options.command ?? process.execPath, args, { cwd: temp.dir, env, stdio: ["ignore", "pipe", "pipe"], ...ids });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, output })));
}

const owner = asRoot ? "uid 1001 (gid 1001)" : `uid ${process.getuid?.()} (gid ${process.getgid?.()})`;
const runAs = asRoot ? "THINKTANK_UID=1001 THINKTANK_GID=1001" : `THINKTANK_UID=${process.getuid?.()} THINKTANK_GID=${process.getgid?.()}`;
const chown = asRoot ? "chown -R 1000:1000" : `chown -R ${process.getuid?.()}:${process.getgid?.()}`;

describe("a data folder the service's uid cannot write", { timeout: 120_000 }, () => {
  it("stops the agent server at start with DATA_DIR_NOT_WRITABLE, the owner, THINKTANK_UID and chown", async (context) => {
    if (otherUidBlocked) context.skip(`${otherUidBlocked}; the read-only mount case below still starts the real agent`);
    const { code, output } = await runToExit(nodeArgsFor(path.join(root, "apps/agent/src/start.ts")));
    expect(code, output).toBe(1);
    expect(output).toContain(`thinktank agent: DATA_DIR_NOT_WRITABLE: cannot write the data folder ${path.join(home, ".thinktank")} (EACCES: permission denied, mkdir '${path.join(home, ".thinktank")}')`);
    expect(output).toContain(`${home} belongs to ${owner}`);
    expect(output).toContain(runAs);
    expect(output).toContain(`${chown} ${home}`);
    // One clear line, no stack trace.
    expect(output).not.toMatch(/\n\s+at /);
    expect(fs.existsSync(path.join(home, ".thinktank"))).toBe(false);
  });

  it("stops `thinktank gateway` the same way, with one line instead of an EACCES stack trace", async (context) => {
    if (otherUidBlocked) context.skip(otherUidBlocked);
    const { code, output } = await runToExit([path.join(root, "apps/cli/bin/thinktank.js"), "gateway"]);
    expect(code, output).toBe(1);
    expect(output).toContain(`thinktank gateway: DATA_DIR_NOT_WRITABLE: cannot write the data folder ${path.join(home, ".thinktank")}`);
    expect(output).toContain(runAs);
    expect(output).toContain(`${chown} ${home}`);
    expect(output).not.toMatch(/\n\s+at /);
  });

  // As root, a real read-only bind of the folder in a mount namespace of the agent's own: EROFS.
  it("stops the agent server on a read-only mount, saying to mount it read-write", { skip: !asRoot }, async () => {
    const script = `mount --bind -o ro "$1" "$1" && shift && exec "$@"`;
    const { code, output } = await runToExit(["--mount", "sh", "-c", script, "sh", home, process.execPath, ...nodeArgsFor(path.join(root, "apps/agent/src/start.ts"))], { command: "unshare" });
    expect(code, output).toBe(1);
    expect(output).toContain(`thinktank agent: DATA_DIR_NOT_WRITABLE: cannot write the data folder ${path.join(home, ".thinktank")} (EROFS: read-only file system`);
    expect(output).toContain("Fix: mount it read-write");
  });
});

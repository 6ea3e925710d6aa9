// A data folder the service's uid cannot write (the Docker case: THINKTANK_HOME owned by another uid
// than the container's 1000) stops a service with one message that says what to set, instead of
// `EACCES: permission denied, mkdir '/srv/thinktank/.thinktank'` from deep inside its start-up.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkDataFolders, type DataFoldersCheck, type DataFoldersConfig } from "./check-data-folders.js";

let temp: { dir: string; cleanup: () => void };
beforeEach(() => {
  temp = makeTempDir("tt-check-data-");
  // Reachable by the other uid the refusals below run as.
  fs.chmodSync(temp.dir, 0o755);
});
afterEach(() => temp.cleanup());

const asRoot = process.getuid?.() === 0;
const tsx = import.meta.resolve("tsx");
const moduleFile = path.join(import.meta.dirname, "check-data-folders.ts");
/** As root, why uid 1000 cannot read this checkout (a clone under a 0700 folder), or undefined when it can. */
const otherUidBlocked = ((): string | undefined => {
  if (!asRoot) return undefined;
  const probe = spawnSync(process.execPath, ["-e", `require("fs").accessSync(${JSON.stringify(moduleFile)})`], { uid: 1000, gid: 1000, encoding: "utf8" });
  return probe.status === 0 ? undefined : `uid 1000 cannot read ${moduleFile}: ${(probe.error?.message ?? probe.stderr).trim().split("\n")[0]}`;
})();

function configIn(home: string): DataFoldersConfig {
  return { data_dir: path.join(home, ".thinktank"), extensions_config: path.join(home, "extensions_config.json"), sandbox: { workspaces_dir: path.join(home, ".thinktank", "workspaces") } } as DataFoldersConfig;
}

/** Runs the check in a real process as `ids` (another uid when the tests run as root), so the kernel refuses as it would in the container. */
function checkAs(config: DataFoldersConfig, ids: { uid: number; gid: number } | undefined): Promise<DataFoldersCheck> {
  const source = `import { checkDataFolders } from ${JSON.stringify(moduleFile)}; process.stdout.write(JSON.stringify(checkDataFolders(${JSON.stringify(config)})));`;
  const child = spawn(process.execPath, ["--import", tsx, "--input-type=module", "-e", source], { cwd: temp.dir, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: temp.dir }, ...ids });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => (code === 0 ? resolve(JSON.parse(stdout) as DataFoldersCheck) : reject(new Error(`check exited ${code}: ${stderr}`))));
  });
}

describe("checkDataFolders", { timeout: 60_000 }, () => {
  it("creates a missing data folder and answers ok", () => {
    const config = configIn(path.join(temp.dir, "home"));
    expect(checkDataFolders(config)).toEqual({ ok: true });
    expect(fs.statSync(config.data_dir).isDirectory()).toBe(true);
    expect(fs.statSync(config.sandbox.workspaces_dir).isDirectory()).toBe(true);
  });

  it("refuses a folder owned by another uid with the owner, this uid, THINKTANK_UID and chown", async (context) => {
    if (otherUidBlocked) context.skip(`${otherUidBlocked}; the read-only mount case still runs`);
    const home = path.join(temp.dir, "home");
    fs.mkdirSync(home, { mode: 0o755 });
    // As root: the folder belongs to 1001 and the check runs as 1000, the case. Otherwise: our own folder, read-only by mode.
    if (asRoot) fs.chownSync(home, 1001, 1001);
    else fs.chmodSync(home, 0o555);
    const ids = asRoot ? { uid: 1000, gid: 1000 } : undefined;
    const owner = asRoot ? { uid: 1001, gid: 1001 } : { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
    const me = ids ?? owner;
    const result = await checkAs(configIn(home), ids);
    expect(result).toMatchObject({ ok: false, code: "DATA_DIR_NOT_WRITABLE", folder: path.join(home, ".thinktank") });
    const message = result.ok ? "" : result.message;
    expect(message).toContain(`EACCES: permission denied, mkdir '${path.join(home, ".thinktank")}'`);
    expect(message).toContain(`${home} belongs to uid ${owner.uid} (gid ${owner.gid}), and this process runs as uid ${me.uid} (gid ${me.gid})`);
    expect(message).toContain(`THINKTANK_UID=${owner.uid} THINKTANK_GID=${owner.gid}`);
    expect(message).toContain(`chown -R ${me.uid}:${me.gid} ${home}`);
    expect(fs.existsSync(path.join(home, ".thinktank"))).toBe(false);
  });

  it("refuses a data folder that exists but is not writable, and the folder of extensions_config.json", async (context) => {
    if (otherUidBlocked) context.skip(otherUidBlocked);
    const home = path.join(temp.dir, "home");
    fs.mkdirSync(path.join(home, ".thinktank", "workspaces"), { recursive: true, mode: 0o755 });
    const ids = asRoot ? { uid: 1000, gid: 1000 } : undefined;
    // The data folder is ours, its parent (where extensions_config.json is replaced by a rename) is not.
    if (asRoot) for (const folder of [path.join(home, ".thinktank"), path.join(home, ".thinktank", "workspaces")]) fs.chownSync(folder, 1000, 1000);
    else fs.chmodSync(home, 0o555);
    const result = await checkAs(configIn(home), ids);
    expect(result).toMatchObject({ ok: false, code: "DATA_DIR_NOT_WRITABLE", folder: home });
    expect(result.ok ? "" : result.message).toMatch(/EACCES: permission denied, access/);
  });

  it("says a read-only mount needs to be mounted read-write (a real read-only bind)", { skip: !asRoot }, async () => {
    const home = path.join(temp.dir, "home");
    fs.mkdirSync(home, { mode: 0o755 });
    const source = `import { checkDataFolders } from ${JSON.stringify(moduleFile)}; process.stdout.write(JSON.stringify(checkDataFolders(${JSON.stringify(configIn(home))})));`;
    // A private mount namespace: the read-only bind exists only for this child.
    const script = `mount --bind -o ro "$1" "$1" && exec "$2" --import "$3" --input-type=module -e "$4"`;
    const child = spawn("unshare", ["--mount", "sh", "-c", script, "sh", home, process.execPath, tsx, source], { cwd: temp.dir, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: temp.dir } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
    expect(code, stderr).toBe(0);
    const result = JSON.parse(stdout) as DataFoldersCheck;
    expect(result).toMatchObject({ ok: false, code: "DATA_DIR_NOT_WRITABLE", folder: path.join(home, ".thinktank") });
    expect(result.ok ? "" : result.message).toContain("read-only file system. Fix: mount it read-write");
  });
});

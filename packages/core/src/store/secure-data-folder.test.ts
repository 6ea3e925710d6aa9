import fs from "node:fs";
import path from "node:path";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../config/load-config.js";
import type { Config } from "../config/config-types.js";
import { secureDataFolder } from "./secure-data-folder.js";

let temp: { dir: string; cleanup: () => void };
beforeEach(() => {
  temp = makeTempDir("tt-secure-data-");
});
afterEach(() => temp.cleanup());

const modeOf = (file: string): string => (fs.lstatSync(file).mode & 0o7777).toString(8);

function configIn(dir: string, backend = "deno"): Config {
  fs.writeFileSync(path.join(dir, "config.yaml"), `sandbox:\n  backend: ${backend}\n`);
  return loadConfig({ env: { THINKTANK_CONFIG: path.join(dir, "config.yaml") }, cwd: dir });
}

/** An install from before: everything 0755 / 0644, as a plain umask made it. */
function oldInstall(config: Config): Record<string, string> {
  const data = config.data_dir;
  const files = {
    database: config.agent.threads.sqlite_path,
    wal: `${config.agent.threads.sqlite_path}-wal`,
    shm: `${config.agent.threads.sqlite_path}-shm`,
    toolsLog: path.join(config.log.dir, "tools", "2026-11-28.jsonl"),
    key: path.join(data, "oauth", "secret.key"),
    token: path.join(data, "oauth", "servers", "abc.json"),
    extensions: config.extensions_config,
  };
  for (const file of Object.values(files)) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
    fs.writeFileSync(file, "x", { mode: 0o644 });
  }
  for (const folder of [data, config.log.dir, path.join(config.log.dir, "tools"), path.join(data, "oauth"), path.join(data, "oauth", "servers")]) fs.chmodSync(folder, 0o755);
  return files;
}

describe("secureDataFolder", () => {
  it("tightens an existing install: the data folder 0700, databases, logs, keys and token stores 0600 in 0700 folders", () => {
    const config = configIn(temp.dir);
    const files = oldInstall(config);
    // A link in the log folder to a file elsewhere: left alone, never followed.
    const elsewhere = path.join(temp.dir, "elsewhere.txt");
    fs.writeFileSync(elsewhere, "not ours", { mode: 0o644 });
    fs.symlinkSync(elsewhere, path.join(config.log.dir, "link.jsonl"));
    const result = secureDataFolder(config, { hostUid: 1000 });
    expect(modeOf(config.data_dir)).toBe("700");
    for (const folder of [config.log.dir, path.join(config.log.dir, "tools"), path.join(config.data_dir, "oauth"), path.join(config.data_dir, "oauth", "servers")]) expect(modeOf(folder)).toBe("700");
    for (const file of Object.values(files)) expect([file, modeOf(file)]).toEqual([file, "600"]);
    expect(modeOf(elsewhere)).toBe("644");
    expect(result.changed).toEqual(expect.arrayContaining([config.data_dir, files.database, files.key]));
    expect(result.problems).toEqual([]);
    // Nothing left to change the second time.
    expect(secureDataFolder(config, { hostUid: 1000 }).changed).toEqual([]);
  });

  it("creates a missing data folder and workspaces folder 0700", () => {
    const config = configIn(temp.dir);
    secureDataFolder(config, { hostUid: 1000 });
    expect(modeOf(config.data_dir)).toBe("700");
    expect(modeOf(config.sandbox.workspaces_dir)).toBe("700");
  });

  it.skipIf(process.getuid?.() !== 0)("as root with sandboxes that drop to nobody: 0710 with nobody's group, so they reach their workspaces and list nothing", () => {
    const config = configIn(temp.dir, "deno");
    oldInstall(config);
    secureDataFolder(config);
    for (const folder of [config.data_dir, config.sandbox.workspaces_dir]) {
      expect(modeOf(folder)).toBe("710");
      expect(fs.statSync(folder).gid).toBe(65534);
    }
    expect(modeOf(config.agent.threads.sqlite_path)).toBe("600");
    // The local backend runs programs as root: no group needs in.
    const other = path.join(temp.dir, "other");
    fs.mkdirSync(other);
    const local = configIn(other, "local");
    secureDataFolder(local);
    expect(modeOf(local.data_dir)).toBe("700");
  });
});

import fs from "node:fs";
import path from "node:path";
import type { Config } from "../config/config-types.js";

export interface CheckDataFoldersOptions {
  /** The uid and gid the service runs as, for the message. @default process.getuid() and process.getgid() */
  readonly uid?: number;
  readonly gid?: number;
}

/** The parts of the configuration that name folders a service writes. */
export type DataFoldersConfig = Pick<Config, "data_dir" | "extensions_config" | "sandbox">;

export type DataFoldersCheck = { readonly ok: true } | { readonly ok: false; readonly code: "DATA_DIR_NOT_WRITABLE"; readonly folder: string; readonly message: string };

/** Errors that mean "this process may not write here", as opposed to a bug or a full disk. */
const refusals = new Set(["EACCES", "EPERM", "EROFS"]);

/**
 * Checks, before a service starts, that it can write the folders it writes: data_dir (created when
 * missing), the sandbox workspaces folder, and the folder of extensions_config.json (the gateway
 * replaces that file with a rename beside it). A folder this uid may not write (a Docker volume
 * owned by another uid, a read-only mount) is answered with DATA_DIR_NOT_WRITABLE and one message
 * naming the folder, its owner, this process's uid and the two fixes (run as the owner:
 * THINKTANK_UID / THINKTANK_GID in docker-compose.yml; or chown the folder). Other errors throw.
 */
export function checkDataFolders(config: DataFoldersConfig, options: CheckDataFoldersOptions = {}): DataFoldersCheck {
  const uid = options.uid ?? process.getuid?.() ?? -1;
  const gid = options.gid ?? process.getgid?.() ?? -1;
  for (const folder of [config.data_dir, config.sandbox.workspaces_dir, path.dirname(config.extensions_config)]) {
    try {
      makeFolder(folder);
      fs.accessSync(folder, fs.constants.W_OK | fs.constants.X_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "";
      if (!refusals.has(code)) throw error;
      return { ok: false, code: "DATA_DIR_NOT_WRITABLE", folder, message: refusalMessage(folder, error as Error, code, uid, gid) };
    }
  }
  return { ok: true };
}

function refusalMessage(folder: string, error: Error, code: string, uid: number, gid: number): string {
  const head = `cannot write the data folder ${folder} (${error.message})`;
  if (code === "EROFS") return `${head}: it is on a read-only file system. Fix: mount it read-write (in docker-compose.yml, THINKTANK_HOME is mounted at /srv/thinktank without :ro).`;
  const existing = nearestExisting(folder);
  const owner = existing ? fs.statSync(existing) : undefined;
  const who = owner && existing ? `${existing} belongs to uid ${owner.uid} (gid ${owner.gid}), and this process runs as uid ${uid} (gid ${gid})` : `this process runs as uid ${uid} (gid ${gid})`;
  const runAs = owner ? `THINKTANK_UID=${owner.uid} THINKTANK_GID=${owner.gid}` : "THINKTANK_UID=<owner's uid> THINKTANK_GID=<owner's gid>";
  const target = existing ?? folder;
  return (
    `${head}: ${who}. Fix: run Thinktank as the folder's owner (Docker Compose: ${runAs} in .env beside docker-compose.yml or in the environment of \`docker compose up\`; the containers run as uid 1000 by default), ` +
    `or give the folder to uid ${uid}: \`chown -R ${uid}:${gid} ${target}\` (in Docker, on the host folder mounted there: THINKTANK_HOME, default the folder of docker-compose.yml).`
  );
}

/**
 * mkdir -p one level at a time: Node's recursive mkdir answers ENOENT, not EROFS, for a folder on a
 * read-only mount, and the message must name the real refusal.
 */
function makeFolder(folder: string): void {
  const existing = nearestExisting(folder) ?? path.parse(path.resolve(folder)).root;
  const missing = path.relative(existing, path.resolve(folder)).split(path.sep).filter(Boolean);
  let current = existing;
  for (const part of missing) {
    current = path.join(current, part);
    try {
      fs.mkdirSync(current, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}

/** The folder itself or its closest existing parent. */
function nearestExisting(folder: string): string | undefined {
  let current = path.resolve(folder);
  for (;;) {
    if (fs.existsSync(current)) return current;
    const parent = path.dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

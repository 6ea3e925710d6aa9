import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { FileLock, ThinktankError, writeFileDurably } from "@thinktank/core";
import type { FileLockOptions } from "@thinktank/core";
import type { OAuthRecord } from "./oauth-record.js";
import { openSealedJson, readSealedFile, sealJson } from "./sealed-json.js";
import { loadSecretKey } from "./secret-key.js";

export interface OAuthTokenStoreOptions {
  /** The store's folder (`<data_dir>/oauth`): `secret.key`, `servers/<hash>.json` and started sign-ins (`pending/`). Created 0700 on first write. */
  readonly dir: string;
  /** THINKTANK_SECRET_KEY; without it a key file in `dir` is generated (mode 0600). */
  readonly secret?: string | undefined;
  /** The cross-process lock each change of a server's file takes (refreshes included). */
  readonly lock?: FileLockOptions;
}

/** A change made under the server's lock: the record to write (`undefined` deletes it, "keep" writes nothing) and what to answer. */
export interface StoreChange<T> {
  readonly record: OAuthRecord | undefined | "keep";
  readonly result: T;
}

interface CachedRead {
  readonly identity: string;
  readonly record: OAuthRecord;
}

/**
 * OAuth tokens of remote MCP servers, encrypted at rest (AES-256-GCM, one file per server, the
 * server's name as associated data so files cannot be swapped). The gateway writes sign-ins, the
 * agent and the CLI read them and write refreshes; every change runs under the file's
 * cross-process lock and re-reads the file first, so two processes refreshing at once never lose
 * a rotated refresh token. Reads are cached by the file's identity (one stat per read).
 */
export class OAuthTokenStore {
  readonly dir: string;
  private key: Buffer | undefined;
  private readonly cache = new Map<string, CachedRead>();

  constructor(private readonly options: OAuthTokenStoreOptions) {
    this.dir = options.dir;
  }

  /** The file of one server's record. */
  fileOf(server: string): string {
    return path.join(this.dir, "servers", `${crypto.createHash("sha256").update(server).digest("hex").slice(0, 40)}.json`);
  }

  /** The server's record, or undefined; OAUTH_STORE_UNREADABLE when the file cannot be opened with this key. */
  get(server: string): OAuthRecord | undefined {
    const file = this.fileOf(server);
    const stat = fs.statSync(file, { throwIfNoEntry: false, bigint: true });
    if (!stat) {
      this.cache.delete(server);
      return undefined;
    }
    const identity = `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
    const cached = this.cache.get(server);
    if (cached?.identity === identity) return cached.record;
    const record = this.readFile(server, file);
    if (record) this.cache.set(server, { identity, record });
    return record;
  }

  /**
   * Runs `change` on the freshly read record while holding the server's lock (across processes),
   * then writes what it answers. Keep network calls inside short: others wait for the lock.
   */
  async update<T>(server: string, change: (current: OAuthRecord | undefined) => Promise<StoreChange<T>> | StoreChange<T>): Promise<T> {
    const file = this.fileOf(server);
    await fs.promises.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const lock = await new FileLock(file, this.options.lock).acquire();
    try {
      const current = this.readFile(server, file);
      const { record, result } = await change(current);
      if (record === "keep") return result;
      await lock.assertHeld();
      if (record === undefined) await fs.promises.rm(file, { force: true });
      else await writeFileDurably(file, sealJson(this.secretKey(), aadFor(server), record), { mode: 0o600 });
      this.cache.delete(server);
      return result;
    } finally {
      await lock.release();
    }
  }

  private readFile(server: string, file: string): OAuthRecord | undefined {
    const text = readSealedFile(file);
    if (text === undefined) return undefined;
    try {
      return openSealedJson(this.secretKey(), aadFor(server), text) as OAuthRecord;
    } catch {
      throw new ThinktankError(
        "OAUTH_STORE_UNREADABLE",
        `the OAuth tokens of MCP server '${server}' cannot be decrypted (${file}): THINKTANK_SECRET_KEY or the key file changed, or the file was altered; restore the key, or delete the file and sign in again`,
        { details: { server, file } },
      );
    }
  }

  /** The AES-256 key the store seals with (also what seals started sign-ins beside the tokens). */
  secretKey(): Buffer {
    this.key ??= loadSecretKey({ secret: this.options.secret, keyFile: path.join(this.dir, "secret.key") });
    return this.key;
  }
}

function aadFor(server: string): string {
  return `thinktank-mcp-oauth:v1:${server}`;
}

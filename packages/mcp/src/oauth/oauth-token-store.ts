import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { FileLock, operatorId, ThinktankError, writeFileDurably } from "@thinktank/core";
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
  /** Whose tokens this store holds (a caller's id): see forUser. @default operatorId ("admin") */
  readonly user?: string;
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
 * OAuth tokens of remote MCP servers, kept per (user, server), encrypted at rest (AES-256-GCM, one
 * file per user and server, both names as associated data so files cannot be swapped between
 * servers or users). A store answers for one user (`user`); forUser gives another user's view of
 * the same folder and key. The operator's (`admin`) records keep the layout they had before users
 * existed (`servers/<hash of the server>.json`), so sign-ins made then stay the operator's; another
 * user's live under `users/<hash of the user>/`. The gateway writes sign-ins, the agent and the
 * CLI read them and write refreshes; every change runs under the file's cross-process lock and
 * re-reads the file first, so two processes refreshing at once never lose a rotated refresh token.
 * Reads are cached by the file's identity (one stat per read).
 */
export class OAuthTokenStore {
  readonly dir: string;
  /** Whose tokens this store reads and writes. */
  readonly user: string;
  private readonly keyRef: { key?: Buffer };
  private readonly cache = new Map<string, CachedRead>();
  /** Views of other users, made by forUser (on the operator's store; shared by every view). */
  private readonly views: Map<string, OAuthTokenStore>;

  constructor(
    private readonly options: OAuthTokenStoreOptions,
    shared?: { readonly keyRef: { key?: Buffer }; readonly views: Map<string, OAuthTokenStore> },
  ) {
    this.dir = options.dir;
    this.user = options.user ?? operatorId;
    if (this.user === "" || this.user.length > 512) throw new ThinktankError("VALIDATION_FAILED", "an OAuth token store's user id must be 1 to 512 characters");
    this.keyRef = shared?.keyRef ?? {};
    this.views = shared?.views ?? new Map([[this.user, this]]);
  }

  /** The same store (folder, key, lock) answering for `user`; made once per user and kept. */
  forUser(user: string): OAuthTokenStore {
    if (user === this.user) return this;
    let view = this.views.get(user);
    if (!view) {
      view = new OAuthTokenStore({ ...this.options, user }, { keyRef: this.keyRef, views: this.views });
      this.views.set(user, view);
    }
    return view;
  }

  /**
   * Forgets every token a user (not the operator) holds, for every server: their folder goes (a
   * deleted user's sign-ins must not outlive them). The tokens are not revoked at their servers.
   * Answers whether there was anything.
   */
  async forgetUser(user: string): Promise<boolean> {
    if (user === operatorId) throw new ThinktankError("VALIDATION_FAILED", "the operator's tokens are forgotten one server at a time (signOut), never all at once");
    const folder = path.join(this.dir, "users", hash(user));
    const existed = fs.existsSync(folder);
    await fs.promises.rm(folder, { recursive: true, force: true });
    this.views.get(user)?.cache.clear();
    return existed;
  }

  /** The file of one server's record (this store's user). */
  fileOf(server: string): string {
    const name = `${hash(server)}.json`;
    return this.user === operatorId ? path.join(this.dir, "servers", name) : path.join(this.dir, "users", hash(this.user), name);
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
      else await writeFileDurably(file, sealJson(this.secretKey(), this.aadFor(server), record), { mode: 0o600 });
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
      return openSealedJson(this.secretKey(), this.aadFor(server), text) as OAuthRecord;
    } catch {
      throw new ThinktankError(
        "OAUTH_STORE_UNREADABLE",
        `the OAuth tokens of MCP server '${server}'${this.user === operatorId ? "" : ` (user ${this.user})`} cannot be decrypted (${file}): THINKTANK_SECRET_KEY or the key file changed, or the file was altered; restore the key, or delete the file and sign in again`,
        { details: { server, file } },
      );
    }
  }

  /** The AES-256 key the store seals with (also what seals started sign-ins beside the tokens). */
  secretKey(): Buffer {
    this.keyRef.key ??= loadSecretKey({ secret: this.options.secret, keyFile: path.join(this.dir, "secret.key") });
    return this.keyRef.key;
  }

  /** The operator's files keep the associated data they had before users existed; a user's binds their id too. */
  private aadFor(server: string): string {
    return this.user === operatorId ? `thinktank-mcp-oauth:v1:${server}` : `thinktank-mcp-oauth:user:v1:${JSON.stringify([this.user, server])}`;
  }
}

function hash(text: string): string {
  return crypto.createHash("sha256").update(text).digest("hex").slice(0, 40);
}

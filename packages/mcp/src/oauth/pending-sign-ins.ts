import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed } from "@modelcontextprotocol/sdk/shared/auth.js";
import { FileLock, writeFileDurably } from "@thinktank/core";
import type { FileLockOptions } from "@thinktank/core";
import type { ResolvedOAuthSettings } from "../servers/server-entry.js";
import { openSealedJson, readSealedFile, sealJson } from "./sealed-json.js";

/**
 * A started sign-in waiting for its callback: what the callback needs to rebuild the provider
 * (the staged PKCE verifier, discovery and client) and check the server. Secrets: kept sealed.
 */
export interface PendingSignIn {
  readonly server: string;
  /** Who signs in (a caller's id): the tokens are stored for them. Absent in sign-ins started before users existed: the operator. */
  readonly user?: string;
  /** The server's URL when the sign-in started: a callback after a change is refused. */
  readonly url: string;
  /** The entry's resolved `oauth` block when it started. */
  readonly settings?: ResolvedOAuthSettings;
  readonly redirect_url: string;
  readonly state: string;
  readonly code_verifier?: string;
  readonly discovery?: OAuthDiscoveryState;
  /** The client the authorization request was made for (registered; a configured one stays in `settings`). */
  readonly client?: OAuthClientInformationMixed;
  readonly return_to?: string;
  /** Epoch ms. */
  readonly started_at: number;
  /** Epoch ms: the callback must come before. */
  readonly expires_at: number;
}

export interface PendingSignInsOptions {
  /** The folder (`<data_dir>/oauth/pending`): one sealed file per sign-in, named by a hash of its `state`. Created 0700. */
  readonly dir: string;
  /** The token store's AES-256 key. */
  readonly key: () => Buffer;
  /** Sign-ins kept at once: the oldest are dropped past it. */
  readonly max: number;
  readonly lock?: FileLockOptions;
}

const fileName = /^[0-9a-f]{64}\.json$/;
// write-file-atomic's temp file beside a target, left by a writer killed mid-write.
const tempName = /^[0-9a-f]{64}\.json\.\d{1,10}$/;

/**
 * Started sign-ins, shared by every process on the folder (gateways behind one address): one file
 * per sign-in, sealed with the token store's key and bound to its name, which is the SHA-256 of
 * the `state` (the state itself is never a file name). Adding and taking run under the folder's
 * cross-process lock, so a `state` is taken once across all processes; adding sweeps expired and
 * unreadable files and drops the oldest past `max`.
 */
export class PendingSignIns {
  private readonly dir: string;

  constructor(private readonly options: PendingSignInsOptions) {
    this.dir = options.dir;
  }

  /** Keeps a started sign-in until its callback (or its expiry). */
  async put(pending: PendingSignIn, now: number): Promise<void> {
    await this.locked(async (lock) => {
      const live = await this.sweep(now);
      const drop = live.length - this.options.max + 1;
      for (const stale of live.slice(0, Math.max(0, drop))) await fs.promises.rm(stale.file, { force: true });
      const hash = hashOf(pending.state);
      await lock.assertHeld();
      await writeFileDurably(path.join(this.dir, `${hash}.json`), sealJson(this.options.key(), aadFor(hash), pending), { mode: 0o600 });
    });
  }

  /** The sign-in of this `state`, taken out (a state works once, in any process); undefined when unknown, used or expired. */
  async take(state: string, now: number): Promise<PendingSignIn | undefined> {
    const hash = hashOf(state);
    const file = path.join(this.dir, `${hash}.json`);
    if (!fs.existsSync(file)) return undefined;
    return this.locked(async () => {
      const pending = this.read(hash, file);
      await fs.promises.rm(file, { force: true });
      return pending && pending.state === state && pending.expires_at > now ? pending : undefined;
    });
  }

  /** The sign-in of this `state` without taking it (no lock: files are replaced atomically). */
  peek(state: string, now: number): PendingSignIn | undefined {
    const hash = hashOf(state);
    const pending = this.read(hash, path.join(this.dir, `${hash}.json`));
    return pending && pending.state === state && pending.expires_at > now ? pending : undefined;
  }

  private async locked<T>(work: (lock: { assertHeld(): Promise<void> }) => Promise<T>): Promise<T> {
    await fs.promises.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const lock = await new FileLock(this.dir, this.options.lock).acquire();
    try {
      return await work(lock);
    } finally {
      await lock.release();
    }
  }

  /** Under the lock: removes expired, unreadable and half-written files; answers the rest, oldest first. */
  private async sweep(now: number): Promise<{ file: string; started: number; written: bigint }[]> {
    const live: { file: string; started: number; written: bigint }[] = [];
    for (const name of await fs.promises.readdir(this.dir)) {
      const file = path.join(this.dir, name);
      if (tempName.test(name)) await fs.promises.rm(file, { force: true });
      if (!fileName.test(name)) continue;
      const pending = this.read(name.slice(0, -".json".length), file);
      const stat = fs.statSync(file, { throwIfNoEntry: false, bigint: true });
      if (!pending || pending.expires_at <= now || !stat) await fs.promises.rm(file, { force: true });
      else live.push({ file, started: pending.started_at, written: stat.mtimeNs });
    }
    return live.sort((a, b) => a.started - b.started || (a.written < b.written ? -1 : a.written > b.written ? 1 : 0));
  }

  /** The file's sign-in; undefined when absent or when it cannot be opened with this key (it can never be finished). */
  private read(hash: string, file: string): PendingSignIn | undefined {
    const text = readSealedFile(file);
    if (text === undefined) return undefined;
    try {
      return openSealedJson(this.options.key(), aadFor(hash), text) as PendingSignIn;
    } catch {
      return undefined;
    }
  }
}

function hashOf(state: string): string {
  return crypto.createHash("sha256").update(state).digest("hex");
}

function aadFor(hash: string): string {
  return `thinktank-mcp-oauth-pending:v1:${hash}`;
}

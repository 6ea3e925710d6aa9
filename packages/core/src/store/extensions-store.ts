import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { isThinktankError, ThinktankError } from "../errors/thinktank-error.js";
import { etagMatches } from "./etag-matches.js";
import type { ExtensionsEntrySchemas } from "./extensions-schemas.js";
import { extensionsSections } from "./extensions-types.js";
import type { ExtensionsDocument, ExtensionsSnapshot } from "./extensions-types.js";
import { FileLock } from "./file-lock.js";
import type { FileLockOptions, HeldLock } from "./file-lock.js";
import { parseJsonDocument } from "./parse-json-document.js";
import { ExtensionsValidator, isPlainObject } from "./validate-extensions.js";
import { atomicTempFiles, writeFileDurably } from "./write-file-durably.js";

export interface ExtensionsStoreOptions {
  /** Stricter entry schemas for some sections (a library that owns a section passes its own). @default extensionsEntrySchemas */
  readonly schemas?: Partial<ExtensionsEntrySchemas>;
  /** Options of the cross-process lock `<file>.lock` that writers take. */
  readonly lock?: FileLockOptions;
  /**
   * A file modified less than this long before it was last read is hashed again on the next
   * read even when its stat looks unchanged: some file systems keep coarse timestamps. @default 2000
   */
  readonly racyWindowMs?: number;
  /** Wall clock. @default Date.now */
  readonly now?: () => number;
}

export interface UpdateOptions {
  /** An If-Match header value: the write happens only when it names the current ETag (else PRECONDITION_FAILED). */
  readonly ifMatch?: string;
}

export interface UpdateResult<T> {
  /** The file as written. */
  readonly snapshot: ExtensionsSnapshot;
  /** The file as it was just before (read under the lock). */
  readonly previous: ExtensionsSnapshot;
  /** What `mutate` returned. */
  readonly result: T;
}

/** What `sweep` did with the leftovers of killed writers (file names, relative to the file's folder). */
export interface SweepResult {
  readonly removed: readonly string[];
  /** Temp files kept because a live process holds the lock and may be writing one of them. */
  readonly kept: readonly string[];
}

/** How long `sweep` waits for the lock before it leaves temp files alone. */
const sweepLockWaitMs = 2000;

/** The top-level key the store keeps its revision number under. */
export const revisionKey = "revision";

interface CacheEntry {
  readonly key: string;
  readonly mtimeMs: number;
  readonly verifiedAt: number;
  readonly snapshot: ExtensionsSnapshot;
  /** Where `revision` sits among the top-level keys (-1: absent), so a write keeps it there. */
  readonly revisionIndex: number;
}

/**
 * extensions_config.json, read by both processes and written only by the gateway.
 *
 * `read()` returns a frozen snapshot and costs one `stat` while the file is unchanged.
 * `update()` runs mutations one at a time: in-process queue, then the cross-process lock,
 * then a fresh read, the If-Match check, the mutation on a copy, validation of the entries it
 * touched, a revision bump and an atomic write (temp file, fsync, rename, fsync of the folder).
 * Unknown top-level keys and key order are kept; placeholders are never resolved.
 */
export class ExtensionsStore {
  private readonly lock: FileLock;
  private readonly validator: ExtensionsValidator;
  private readonly racyWindowMs: number;
  private readonly now: () => number;
  private cache: CacheEntry | undefined;
  private queueTail: Promise<unknown> = Promise.resolve();

  constructor(
    readonly file: string,
    options: ExtensionsStoreOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.lock = new FileLock(file, { now: this.now, ...options.lock });
    this.validator = new ExtensionsValidator({ schemas: options.schemas });
    this.racyWindowMs = options.racyWindowMs ?? 2000;
  }

  /** The current document. Throws CONFIG_INVALID when the file is missing, STORE_CORRUPT when it is not a valid document. */
  async read(): Promise<ExtensionsSnapshot> {
    return (await this.load(false)).snapshot;
  }

  /**
   * Applies `mutate` to a copy of the current document and writes the result. `mutate` may
   * change the draft in place and may throw (a ThinktankError passes through; nothing is written).
   * Every call bumps the revision, even one that changes nothing else.
   */
  update<T>(mutate: (draft: ExtensionsDocument, current: ExtensionsSnapshot) => T | Promise<T>, options: UpdateOptions = {}): Promise<UpdateResult<T>> {
    return this.enqueue(async () => {
      const held = await this.lock.acquire();
      try {
        const current = await this.load(true);
        const previous = current.snapshot;
        if (options.ifMatch !== undefined && !etagMatches(options.ifMatch, previous.etag)) {
          throw new ThinktankError("PRECONDITION_FAILED", `extensions_config.json changed since you read it: If-Match ${options.ifMatch} does not match the current ETag ${previous.etag}`, {
            details: { etag: previous.etag },
          });
        }
        const draft = structuredClone(previous.document) as ExtensionsDocument;
        const result = await mutate(draft, previous);
        delete draft[revisionKey];
        const problems = this.validator.validate(draft, { previous: previous.document });
        if (problems.length > 0) {
          const summary = problems.map((p) => `${p.path}: ${p.message}`).join("; ");
          throw new ThinktankError("VALIDATION_FAILED", `invalid extensions config: ${summary}`, { details: { problems } });
        }
        const revision = previous.revision + 1;
        const text = serialize(draft, revision, current.revisionIndex);
        await held.assertHeld();
        await writeFileDurably(this.file, text);
        const snapshot = buildSnapshot(draft, revision, hashOf(text));
        const stats = await fs.promises.stat(this.file, { bigint: true });
        this.cache = { key: statKey(stats), mtimeMs: Number(stats.mtimeMs), verifiedAt: this.now(), snapshot, revisionIndex: positionOfRevision(draft, current.revisionIndex) };
        return { snapshot, previous, result };
      } finally {
        await held.release();
      }
    });
  }

  /**
   * Removes what killed writers left beside the file (call once at start): lock folders whose
   * owner is gone (see FileLock.sweepLeftovers) and write-file-atomic temp files. Temp files are
   * only ever written under the lock, so they go only once this process holds it: a live writer's
   * are kept. Waits at most a couple of seconds for the lock.
   */
  sweep(): Promise<SweepResult> {
    return this.enqueue(async () => {
      const removed = await this.lock.sweepLeftovers();
      const relative = (file: string): string => path.relative(path.dirname(this.file), file);
      if ((await atomicTempFiles(this.file)).length === 0) return { removed, kept: [] };
      let held: HeldLock;
      try {
        held = await this.lock.acquire({ timeoutMs: sweepLockWaitMs });
      } catch (error) {
        if (isThinktankError(error) && error.code === "STORE_BUSY") return { removed, kept: (await atomicTempFiles(this.file)).map(relative) };
        throw error;
      }
      try {
        for (const temp of await atomicTempFiles(this.file)) {
          await fs.promises.unlink(temp).then(
            () => removed.push(relative(temp)),
            () => undefined, // gone already, or not a plain file
          );
        }
      } finally {
        await held.release();
      }
      return { removed, kept: [] };
    });
  }

  /** Bumps the revision without other changes, so readers notice a change made elsewhere (skill or plugin folders). */
  async touch(): Promise<ExtensionsSnapshot> {
    return (await this.update(() => undefined)).snapshot;
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queueTail.then(task);
    this.queueTail = run.catch(() => undefined);
    return run;
  }

  private async load(verify: boolean): Promise<CacheEntry> {
    let stats: fs.BigIntStats;
    try {
      stats = await fs.promises.stat(this.file, { bigint: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        throw new ThinktankError("CONFIG_INVALID", `${this.file}: extensions config not found (create it with {"mcpServers": {}, "skills": {}, "plugins": {}, "tools": {}}, or set extensions_config in config.yaml)`, {
          cause: error,
          details: { file: this.file },
        });
      }
      throw error;
    }
    const key = statKey(stats);
    const cached = this.cache;
    const now = this.now();
    if (!verify && cached && cached.key === key && cached.verifiedAt - cached.mtimeMs >= this.racyWindowMs) return cached;
    const bytes = await fs.promises.readFile(this.file);
    const hash = hashOf(bytes);
    if (cached && cached.snapshot.hash === hash) {
      this.cache = { ...cached, key, mtimeMs: Number(stats.mtimeMs), verifiedAt: now };
      return this.cache;
    }
    const { document, revision, revisionIndex } = this.parse(bytes.toString("utf8"));
    this.cache = { key, mtimeMs: Number(stats.mtimeMs), verifiedAt: now, snapshot: buildSnapshot(document, revision, hash), revisionIndex };
    return this.cache;
  }

  private parse(text: string): { document: ExtensionsDocument; revision: number; revisionIndex: number } {
    const parsed = parseJsonDocument(text, this.file);
    if (!isPlainObject(parsed)) {
      throw new ThinktankError("STORE_CORRUPT", `${this.file}: the top level must be a JSON object`, { details: { file: this.file } });
    }
    for (const section of extensionsSections) {
      const value = parsed[section];
      if (value !== undefined && !isPlainObject(value)) {
        throw new ThinktankError("STORE_CORRUPT", `${this.file}: ${section}: must be an object`, { details: { file: this.file, path: section } });
      }
    }
    const revisionIndex = Object.keys(parsed).indexOf(revisionKey);
    const raw = parsed[revisionKey];
    const revision = typeof raw === "number" && Number.isSafeInteger(raw) && raw >= 0 ? raw : 0;
    const document: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(parsed)) if (key !== revisionKey) document[key] = value;
    for (const section of extensionsSections) document[section] ??= {};
    return { document: document as ExtensionsDocument, revision, revisionIndex };
  }
}

/** Two-space JSON with a trailing newline; `revision` goes back where it was, or last. */
function serialize(document: ExtensionsDocument, revision: number, revisionIndex: number): string {
  const entries = Object.entries(document).filter(([key]) => key !== revisionKey);
  const at = revisionIndex < 0 ? entries.length : Math.min(revisionIndex, entries.length);
  entries.splice(at, 0, [revisionKey, revision]);
  return `${JSON.stringify(Object.fromEntries(entries), null, 2)}\n`;
}

function positionOfRevision(document: ExtensionsDocument, revisionIndex: number): number {
  const count = Object.keys(document).filter((key) => key !== revisionKey).length;
  return revisionIndex < 0 ? count : Math.min(revisionIndex, count);
}

function buildSnapshot(document: ExtensionsDocument, revision: number, hash: string): ExtensionsSnapshot {
  return Object.freeze({ document: deepFreeze(document), revision, etag: `"${revision}-${hash.slice(0, 16)}"`, hash });
}

function statKey(stats: fs.BigIntStats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

function hashOf(content: string | Buffer): string {
  return createHash("sha256").update(content).digest("hex");
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

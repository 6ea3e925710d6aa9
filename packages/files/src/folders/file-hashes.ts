import crypto from "node:crypto";
import fs from "node:fs";
import { pipeline } from "node:stream/promises";

/** What identifies one version of a file cheaply: its size, mtime and inode. */
export interface FileVersion {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
}

/**
 * SHA-256 of files, remembered by key (thread, folder, path) and version (size, mtime, inode), so a
 * listing hashes only what changed since the last one. Bounded: the oldest entries go first.
 */
export class FileHashes {
  readonly #entries = new Map<string, FileVersion & { readonly sha256: string }>();

  constructor(private readonly maxEntries: number) {}

  get(key: string, version: FileVersion): string | undefined {
    const entry = this.#entries.get(key);
    if (!entry || entry.size !== version.size || entry.mtimeMs !== version.mtimeMs || entry.ino !== version.ino) return undefined;
    // Most recently used last.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.sha256;
  }

  set(key: string, version: FileVersion, sha256: string): void {
    this.#entries.delete(key);
    this.#entries.set(key, { size: version.size, mtimeMs: version.mtimeMs, ino: version.ino, sha256 });
    while (this.#entries.size > this.maxEntries) this.#entries.delete(this.#entries.keys().next().value as string);
  }

  /** Forgets every key that starts with `prefix` (a thread removed). */
  forget(prefix: string): void {
    for (const key of [...this.#entries.keys()]) if (key.startsWith(prefix)) this.#entries.delete(key);
  }
}

/** Hex SHA-256 of what an open descriptor holds (read from its start; the descriptor is left open). */
export async function hashDescriptor(fd: number): Promise<string> {
  const hash = crypto.createHash("sha256");
  await pipeline(fs.createReadStream("", { fd, start: 0, autoClose: false }), hash);
  return hash.digest("hex");
}

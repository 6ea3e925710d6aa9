import fs from "node:fs";
import path from "node:path";
import { ThinktankError, writeFileDurably } from "@thinktank/core";
import { invalid, memoryPathOf, memoryRoot, resolveMemoryPath, type MemoryPath } from "./memory-paths.js";

/** One file of a user's memory as lists show it. */
export interface MemoryFile {
  /** `/memories/...` */
  readonly path: string;
  /** Bytes. */
  readonly size: number;
  /** ISO 8601. */
  readonly modified: string;
}

/** A user's memory caps (config memory.max_files, memory.max_kb). */
export interface MemoryLimits {
  readonly maxFiles: number;
  /** All files together, and so one file, in bytes. */
  readonly maxBytes: number;
}

/** How a path meets the disk: its host path, and what is there (undefined: nothing). */
interface Located {
  readonly path: MemoryPath;
  readonly host: string;
  readonly stat: fs.Stats | undefined;
}

/** Runs mutations of one user's memory one after another within the process (MemoryStore keeps one per user). */
export type MemoryQueue = <T>(work: () => Promise<T>) => Promise<T>;

/**
 * One user's memory: files under their own folder (`<data_dir>/memory/<user folder>`) that the
 * model sees as /memories. Every path goes through resolveMemoryPath and then the disk, where no
 * link is followed (any part of a path that is a link is refused, files are opened O_NOFOLLOW).
 * Writes are atomic (temp file, fsync, rename) and within the caps; mutations of one user are
 * serialized in the process. Failures throw ThinktankError (MEMORY_PATH_INVALID, MEMORY_NOT_FOUND,
 * MEMORY_FULL, MEMORY_EDIT_FAILED, CONFLICT); the memory tool turns them into answers.
 */
export class UserMemory {
  constructor(
    /** The user whose memory this is. */
    readonly userId: string,
    /** Their folder on the host (made on the first write). */
    readonly folder: string,
    readonly limits: MemoryLimits,
    private readonly queue: MemoryQueue,
  ) {}

  /**
   * Every file (not folders), by path; links and hidden names are skipped. The walk is synchronous:
   * a few hundred lstat calls take well under a millisecond that way, while as promises each waits
   * its turn in libuv's thread pool behind the database and the checkpoints (the digest lists the
   * memory before a new thread's first model call).
   */
  async list(): Promise<MemoryFile[]> {
    const files: MemoryFile[] = [];
    const walk = (host: string, segments: readonly string[]): void => {
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(host, { withFileTypes: true });
      } catch (error) {
        if (isMissing(error)) return;
        throw error;
      }
      for (const entry of entries) {
        if (entry.name.startsWith(".")) continue;
        const child = path.join(host, entry.name);
        if (entry.isDirectory()) walk(child, [...segments, entry.name]);
        else if (entry.isFile()) {
          const stat = fs.lstatSync(child, { throwIfNoEntry: false });
          if (stat?.isFile()) files.push({ path: memoryPathOf([...segments, entry.name]), size: stat.size, modified: stat.mtime.toISOString() });
        }
      }
    };
    if ((await this.rootStat()) === undefined) return [];
    walk(this.folder, []);
    return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** The file's text. `relative` takes `notes.md` as `/memories/notes.md` (the API's paths). */
  async read(virtualPath: string, options: { readonly relative?: boolean } = {}): Promise<string> {
    const located = await this.locate(resolveMemoryPath(virtualPath, options));
    return this.readLocated(located);
  }

  /** The first `bytes` bytes of a file as text (the digest's start of each file; synchronous, as list() is, for the same reason). */
  async readStart(virtualPath: string, bytes: number): Promise<string> {
    const located = await this.locate(resolveMemoryPath(virtualPath));
    if (!located.stat) throw notFound(located.path.virtual);
    if (!located.stat.isFile()) throw invalid(`${located.path.virtual} is a folder`, "IS_FOLDER");
    let descriptor: number;
    try {
      descriptor = fs.openSync(located.host, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    } catch (error) {
      if (isMissing(error)) throw notFound(located.path.virtual);
      throw invalid(`${located.path.virtual} cannot be opened (a link?)`, "LINK");
    }
    try {
      const buffer = Buffer.alloc(Math.min(bytes, located.stat.size));
      const bytesRead = fs.readSync(descriptor, buffer, 0, buffer.length, 0);
      return buffer.subarray(0, bytesRead).toString("utf8");
    } finally {
      fs.closeSync(descriptor);
    }
  }

  /** Creates or replaces a file (its folders made as needed), within the caps. */
  async write(virtualPath: string, text: string, options: { readonly relative?: boolean } = {}): Promise<MemoryFile> {
    const target = resolveMemoryPath(virtualPath, options);
    if (target.segments.length === 0) throw invalid(`${memoryRoot} is a folder; give a file path such as ${memoryRoot}/notes.md`, "IS_FOLDER");
    return this.queue(async () => this.writeLocated(await this.locate(target), text));
  }

  /** Changes an existing file's text in one step (no other change of this user's memory in between): the edit commands. */
  async update(virtualPath: string, change: (text: string) => string): Promise<MemoryFile> {
    const target = resolveMemoryPath(virtualPath);
    return this.queue(async () => {
      const located = await this.locate(target);
      return this.writeLocated(located, change(await this.readLocated(located)));
    });
  }

  /** Removes a file, or a folder with everything in it. /memories itself: use clear(). */
  async remove(virtualPath: string, options: { readonly relative?: boolean } = {}): Promise<void> {
    const target = resolveMemoryPath(virtualPath, options);
    if (target.segments.length === 0) throw invalid(`${memoryRoot} itself cannot be deleted; delete what is in it`, "IS_ROOT");
    await this.queue(async () => {
      const located = await this.locate(target);
      if (!located.stat) throw notFound(target.virtual);
      await fs.promises.rm(located.host, { recursive: true, force: true });
    });
  }

  /** Moves a file or folder; the new path must not exist. */
  async rename(oldPath: string, newPath: string, options: { readonly relative?: boolean } = {}): Promise<void> {
    const from = resolveMemoryPath(oldPath, options);
    const to = resolveMemoryPath(newPath, options);
    if (from.segments.length === 0 || to.segments.length === 0) throw invalid(`${memoryRoot} itself cannot be renamed`, "IS_ROOT");
    if (to.virtual.startsWith(`${from.virtual}/`)) throw invalid(`${from.virtual} cannot move into itself`, "INTO_ITSELF");
    await this.queue(async () => {
      const source = await this.locate(from);
      if (!source.stat) throw notFound(from.virtual);
      const destination = await this.locate(to);
      if (destination.stat) throw new ThinktankError("CONFLICT", `${to.virtual} already exists; delete it first or choose another name`);
      await this.makeParents(to);
      await fs.promises.rename(source.host, destination.host);
    });
  }

  /** Forgets everything: removes the user's whole folder. Answers how many files there were. */
  async clear(): Promise<number> {
    return this.queue(async () => {
      const count = (await this.list()).length;
      await fs.promises.rm(this.folder, { recursive: true, force: true });
      return count;
    });
  }

  /** Every file with its text (the export). */
  async files(): Promise<{ readonly path: string; readonly text: string }[]> {
    const listed = await this.list();
    return Promise.all(listed.map(async (file) => ({ path: file.path, text: await this.read(file.path) })));
  }

  /** Where a checked path is on the host and what is there; a link anywhere on the way is refused. */
  async locate(target: MemoryPath): Promise<Located> {
    let current = this.folder;
    let stat = await this.rootStat();
    for (const [index, segment] of target.segments.entries()) {
      current = path.join(current, segment);
      if (stat === undefined) continue;
      if (!stat.isDirectory()) throw invalid(`${memoryPathOf(target.segments.slice(0, index))} is a file, not a folder`, "NOT_A_FOLDER");
      stat = await lstatOrUndefined(current);
      if (stat?.isSymbolicLink()) throw invalid(`${memoryPathOf(target.segments.slice(0, index + 1))} is a link; memory never follows links`, "LINK");
      if (stat && !stat.isFile() && !stat.isDirectory()) throw invalid(`${memoryPathOf(target.segments.slice(0, index + 1))} is not a file or folder`, "SPECIAL_FILE");
    }
    return { path: target, host: current, stat };
  }

  /** The text of a located file (MEMORY_NOT_FOUND when nothing is there, MEMORY_PATH_INVALID for a folder). */
  async readLocated(located: Located): Promise<string> {
    const handle = await this.open(located);
    try {
      return await handle.readFile("utf8");
    } finally {
      await handle.close();
    }
  }

  /** Whether `addBytes` more bytes and `addFiles` more files stay within the caps (MEMORY_FULL otherwise). */
  async checkRoom(addBytes: number, addFiles: number): Promise<void> {
    const files = await this.list();
    const bytes = files.reduce((sum, file) => sum + file.size, 0);
    const { maxFiles, maxBytes } = this.limits;
    if (addFiles > 0 && files.length + addFiles > maxFiles) {
      throw new ThinktankError("MEMORY_FULL", `memory holds ${files.length} files, the most it may (memory.max_files ${maxFiles}); delete or merge files first`, { details: { files: files.length, max_files: maxFiles } });
    }
    if (addBytes > 0 && bytes + addBytes > maxBytes) {
      throw new ThinktankError("MEMORY_FULL", `memory would hold ${bytes + addBytes} bytes, more than memory.max_kb allows (${maxBytes} bytes); shorten or delete files first`, { details: { bytes, adding: addBytes, max_bytes: maxBytes } });
    }
  }

  private async writeLocated(located: Located, text: string): Promise<MemoryFile> {
    if (located.stat?.isDirectory()) throw invalid(`${located.path.virtual} is a folder`, "IS_FOLDER");
    const size = Buffer.byteLength(text);
    await this.checkRoom(size - (located.stat?.size ?? 0), located.stat ? 0 : 1);
    await this.makeParents(located.path);
    await writeFileDurably(located.host, text, { mode: 0o600 });
    return { path: located.path.virtual, size, modified: new Date().toISOString() };
  }

  private async open(located: Located): Promise<fs.promises.FileHandle> {
    if (!located.stat) throw notFound(located.path.virtual);
    if (located.stat.isDirectory()) throw invalid(`${located.path.virtual} is a folder; view it to list its files`, "IS_FOLDER");
    let handle: fs.promises.FileHandle;
    try {
      handle = await fs.promises.open(located.host, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    } catch (error) {
      if (isMissing(error)) throw notFound(located.path.virtual);
      if ((error as NodeJS.ErrnoException).code === "ELOOP") throw invalid(`${located.path.virtual} is a link; memory never follows links`, "LINK");
      throw error;
    }
    return handle;
  }

  /** The user's folder's own state; a link there (or at the memory root) is refused. */
  private async rootStat(): Promise<fs.Stats | undefined> {
    const parent = await lstatOrUndefined(path.dirname(this.folder));
    if (parent?.isSymbolicLink()) throw invalid("the memory folder is a link; memory never follows links", "LINK");
    const stat = await lstatOrUndefined(this.folder);
    if (stat?.isSymbolicLink() || (stat && !stat.isDirectory())) throw invalid("the user's memory folder is a link or not a folder", "LINK");
    return stat;
  }

  /** Makes the folders above a path (0700), refusing links on the way (locate checked them; a folder made since is checked again). */
  private async makeParents(target: MemoryPath): Promise<void> {
    await fs.promises.mkdir(path.dirname(this.folder), { recursive: true, mode: 0o700 });
    for (let depth = 0; depth < target.segments.length; depth++) {
      const current = path.join(this.folder, ...target.segments.slice(0, depth));
      try {
        await fs.promises.mkdir(current, { mode: 0o700 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        const stat = await fs.promises.lstat(current);
        if (!stat.isDirectory()) throw invalid(`${memoryPathOf(target.segments.slice(0, depth))} is not a folder`, stat.isSymbolicLink() ? "LINK" : "NOT_A_FOLDER");
      }
    }
  }
}

/** MEMORY_NOT_FOUND naming the path. */
export function notFound(virtual: string): ThinktankError {
  return new ThinktankError("MEMORY_NOT_FOUND", `${virtual} does not exist; view ${memoryRoot} to list the files`, { details: { path: virtual } });
}

/** lstat, synchronous as list() is; undefined when nothing is there. */
async function lstatOrUndefined(file: string): Promise<fs.Stats | undefined> {
  try {
    return fs.lstatSync(file, { throwIfNoEntry: false });
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR";
}

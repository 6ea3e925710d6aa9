import fs, { constants } from "node:fs";
import path from "node:path";
import { ThinktankError } from "@thinktank/core";
import { openInFolder, pinFolder, withHeldFolder, type FolderOwner, type HeldFolder, type HeldFolderRefusals } from "./held-folders.js";
import type { VirtualFileSystem, VirtualTarget } from "./virtual-file-system.js";

export interface FileOperationsOptions {
  /** Largest text read returns in one call; the rest is reachable with offset and limit. @default 100_000 */
  readonly maxReadBytes?: number;
  /** Largest file write and replace produce, in bytes. @default 10 MiB */
  readonly maxWriteBytes?: number;
  /** Most entries list shows. @default 1000 */
  readonly maxListEntries?: number;
}

/**
 * What the model's file tools (read_file, write_file, str_replace, ls) do over the virtual folders
 * of one thread. Every path goes through the VirtualFileSystem (no escapes, no symlinks out,
 * /mnt/skills and uploads read-only, disabled skills invisible). Each operation answers the text the
 * model reads, and refuses with a ThinktankError. Files written into the workspace get the
 * workspace's owner, so sandboxed programs (bash, execute_code) can change them too. Those programs
 * may run at the same moment and swap a folder or a file for a symbolic link between the check and
 * the use: under /mnt/user-data every folder on the way is held open from the folder's root down and
 * every file is opened through its held folder without following a link (held-folders.ts), so what
 * is read, written, created or chowned is inside, or the operation answers PATH_TRAVERSAL.
 */
export class FileOperations {
  private readonly maxReadBytes: number;
  private readonly maxWriteBytes: number;
  private readonly maxListEntries: number;

  constructor(
    private readonly files: VirtualFileSystem,
    options: FileOperationsOptions = {},
  ) {
    this.maxReadBytes = options.maxReadBytes ?? 100_000;
    this.maxWriteBytes = options.maxWriteBytes ?? 10 * 1024 * 1024;
    this.maxListEntries = options.maxListEntries ?? 1000;
  }

  /** A text file, whole or `limit` lines from line `offset` (1-based); a binary file is named, not shown. */
  async read(virtualPath: string, offset?: number, limit?: number): Promise<string> {
    const target = await this.files.resolve(virtualPath);
    const file = requireFile(target);
    const bytes = target.kind === "file" && target.userFolder ? inUserFile(target, constants.O_RDONLY, (fd) => fs.readFileSync(fd)) : fs.readFileSync(file);
    if (bytes.subarray(0, 8192).includes(0)) return `${target.virtualPath} is a binary file (${bytes.length} bytes); it cannot be shown as text`;
    const text = bytes.toString("utf8");
    const lines = text.split("\n");
    const start = Math.max(0, (offset ?? 1) - 1);
    const selected = limit === undefined && start === 0 ? text : lines.slice(start, limit === undefined ? undefined : start + limit).join("\n");
    if (Buffer.byteLength(selected) <= this.maxReadBytes) return selected;
    return `${Buffer.from(selected).subarray(0, this.maxReadBytes).toString("utf8")}\n[... truncated: read more with offset and limit (the file has ${lines.length} lines)]`;
  }

  /** Creates or overwrites a file (its missing folders too), or appends to it; nothing changes when the result would pass maxWriteBytes. */
  async write(virtualPath: string, content: string, append?: boolean): Promise<string> {
    const target = writableTarget(await this.files.resolve(virtualPath));
    const bytes = Buffer.byteLength(content);
    const tooLarge = (existing: number) => new ThinktankError("PAYLOAD_TOO_LARGE", `${target.virtualPath} would be ${existing + bytes} bytes; the limit is ${this.maxWriteBytes}`);
    const appending = append === true && target.kind === "file";
    if (!appending && bytes > this.maxWriteBytes) throw tooLarge(0);
    // Appending to the file resolve found: not created again should it vanish meanwhile (NOT_FOUND then).
    const flags = constants.O_WRONLY | (appending ? 0 : constants.O_CREAT) | (append ? constants.O_APPEND : 0);
    inUserFile(target, flags, (fd, owner) => {
      const existing = appending ? fs.fstatSync(fd).size : 0;
      if (existing + bytes > this.maxWriteBytes) throw tooLarge(existing);
      if (!append) fs.ftruncateSync(fd, 0);
      fs.writeFileSync(fd, content);
      if (owner) fs.fchownSync(fd, owner.uid, owner.gid);
    });
    return `${append ? "appended" : "wrote"} ${bytes} bytes to ${target.virtualPath}`;
  }

  /** Replaces the one occurrence of `oldText` (every one with `replaceAll`); refuses none, or several without `replaceAll`. */
  async replace(virtualPath: string, oldText: string, newText: string, replaceAll?: boolean): Promise<string> {
    const target = writableTarget(await this.files.resolve(virtualPath));
    requireFile(target);
    if (oldText === "") throw new ThinktankError("VALIDATION_FAILED", "old_str must not be empty");
    return inUserFile(target, constants.O_RDWR, (fd) => {
      const text = fs.readFileSync(fd, "utf8");
      const count = text.split(oldText).length - 1;
      if (count === 0) throw new ThinktankError("VALIDATION_FAILED", `old_str was not found in ${target.virtualPath}; read the file and copy the text exactly (spaces and line breaks included)`);
      if (count > 1 && !replaceAll) throw new ThinktankError("VALIDATION_FAILED", `old_str appears ${count} times in ${target.virtualPath}; include more surrounding text to make it unique, or set replace_all`);
      const updated = Buffer.from(replaceAll ? text.split(oldText).join(newText) : text.replace(oldText, () => newText));
      if (updated.length > this.maxWriteBytes) throw new ThinktankError("PAYLOAD_TOO_LARGE", `${target.virtualPath} would exceed ${this.maxWriteBytes} bytes`);
      fs.ftruncateSync(fd, 0);
      for (let written = 0; written < updated.length; ) written += fs.writeSync(fd, updated, written, updated.length - written, written);
      return `replaced ${replaceAll ? count : 1} occurrence${(replaceAll ? count : 1) === 1 ? "" : "s"} in ${target.virtualPath}`;
    });
  }

  /** A folder's entries, one a line, sorted, folders ending with '/'. */
  async list(virtualPath: string): Promise<string> {
    const target = await this.files.resolve(virtualPath);
    let names: string[];
    if (target.kind === "listing") names = [...target.entries];
    else if (target.kind === "folder") {
      const entries = target.userFolder
        ? withHeldFolder(target.root, namesBelow(target.root, target.hostPath), refusals(target), {}, (folder) => fs.readdirSync(folder.at, { withFileTypes: true }))
        : fs.readdirSync(target.hostPath, { withFileTypes: true });
      names = entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort();
    } else if (target.kind === "file") return `${target.virtualPath} is a file; read it with read_file`;
    else throw new ThinktankError("NOT_FOUND", `${target.virtualPath} does not exist`);
    if (names.length === 0) return "(empty folder)";
    const shown = names.slice(0, this.maxListEntries);
    return names.length > shown.length ? `${shown.join("\n")}\n[... ${names.length - shown.length} more entries]` : shown.join("\n");
  }
}

/** A regular file a walk found: its path relative to the folder walked ('/' between segments), its size and times. */
export interface WalkedFile {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
}

/** Folders a walk descends into at most, below the folder walked. */
const maxWalkDepth = 32;
/** Entries a walk looks at, per file it may answer. */
const maxWalkExamined = 20;

/**
 * What the thread files API does over the same folders with the same rules (the model's tools do
 * not use these): open a file to serve it, walk a folder to list it, remove a file.
 */
export class FileAccess {
  constructor(private readonly files: VirtualFileSystem) {}

  /**
   * A file opened for reading through its held folders (a link on the way, or the file itself a
   * link, is PATH_TRAVERSAL); the caller closes `fd`. NOT_FOUND when missing, VALIDATION_FAILED for
   * a folder or anything but a regular file.
   */
  async open(virtualPath: string): Promise<{ readonly fd: number; readonly virtualPath: string; readonly stats: fs.Stats }> {
    const target = await this.files.resolve(virtualPath);
    requireFile(target);
    const held = target as HostTarget;
    const names = namesBelow(held.root, held.hostPath);
    const name = names.pop() as string;
    const refuse = refusals(held);
    return withHeldFolder(held.root, names, refuse, {}, (folder) => {
      const fd = openInFolder(folder, name, constants.O_RDONLY, refuse);
      const stats = fs.fstatSync(fd);
      if (!stats.isFile()) {
        fs.closeSync(fd);
        throw new ThinktankError("VALIDATION_FAILED", `${held.virtualPath} is not a regular file`);
      }
      return { fd, virtualPath: held.virtualPath, stats };
    });
  }

  /**
   * Removes one file, read-only folders included (the API's delete, not the model's). The name given
   * is what goes: a link inside the folder is removed itself, never what it points to; a link that
   * leads out is refused (PATH_TRAVERSAL) as resolve refuses it; a folder is VALIDATION_FAILED.
   */
  async remove(virtualPath: string): Promise<void> {
    const target = await this.files.resolve(virtualPath);
    if (target.kind === "listing" || target.kind === "folder") throw new ThinktankError("VALIDATION_FAILED", `${target.virtualPath} is a folder; give a file path`);
    if (target.kind === "missing" || !target.userFolder) throw new ThinktankError("NOT_FOUND", `${target.virtualPath} does not exist`);
    // The names as given below the folder (not the resolved path, which would be a link's target).
    const names = target.virtualPath.slice(target.userFolder.length + 1).split("/");
    const name = names.pop() as string;
    withHeldFolder(target.root, names, refusals(target), {}, (folder) => {
      const file = path.join(folder.at, name);
      const stats = fs.lstatSync(file, { throwIfNoEntry: false });
      if (!stats) throw new ThinktankError("NOT_FOUND", `${target.virtualPath} does not exist`);
      if (stats.isDirectory()) throw new ThinktankError("VALIDATION_FAILED", `${target.virtualPath} is a folder; give a file path`);
      fs.unlinkSync(file);
    });
  }

  /**
   * The regular files under a folder of /mnt/user-data, recursing into its folders (each held open,
   * never through a link: links are skipped, whatever they point to), sorted by path, at most
   * `maxEntries`, looking at no more than 20 entries of any kind per file it may answer (`truncated`
   * then says there were more). A folder that does not exist yet walks empty.
   */
  async walk(virtualPath: string, maxEntries: number): Promise<{ readonly files: readonly WalkedFile[]; readonly truncated: boolean }> {
    const target = await this.files.resolve(virtualPath);
    if (target.kind === "missing") return { files: [], truncated: false };
    if (target.kind !== "folder" || !target.userFolder) throw new ThinktankError("VALIDATION_FAILED", `${target.virtualPath} is not a folder of ${"/mnt/user-data"}`);
    const files: WalkedFile[] = [];
    let truncated = false;
    // Every entry looked at counts (folders, links and FIFOs too), so a tree of empty folders or a
    // folder of a million names costs a bounded walk, not the whole tree.
    let budget = maxEntries * maxWalkExamined;
    const visit = (folder: HeldFolder, prefix: string, depth: number): void => {
      const entries: fs.Dirent[] = [];
      const dir = fs.opendirSync(folder.at);
      try {
        for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) {
          if (budget-- <= 0) {
            truncated = true;
            break;
          }
          entries.push(entry);
        }
      } finally {
        dir.closeSync();
      }
      for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
        if (files.length >= maxEntries) {
          truncated = true;
          return;
        }
        const relative = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
        if (entry.isDirectory() && depth < maxWalkDepth) {
          let child: HeldFolder | undefined;
          try {
            child = pinFolder(path.join(folder.at, entry.name), target.root);
          } catch {
            continue; // swapped for a link or removed meanwhile: skipped
          }
          if (!child) continue;
          try {
            visit(child, relative, depth + 1);
          } finally {
            child.close();
          }
        } else if (entry.isFile()) {
          const stats = fs.lstatSync(path.join(folder.at, entry.name), { throwIfNoEntry: false });
          if (stats?.isFile()) files.push({ path: relative, size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino });
        }
      }
    };
    withHeldFolder(target.root, namesBelow(target.root, target.hostPath), refusals(target), {}, (folder) => visit(folder, "", 0));
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { files, truncated };
  }
}

type HostTarget = Extract<VirtualTarget, { hostPath: string }>;

/**
 * Runs `work` with the file of a /mnt/user-data target open (`flags` without O_TRUNC; its descriptor,
 * through which everything is read, written, stat'ed and chowned), reached through its folders held
 * open from the root down (held-folders.ts): a sandboxed program swapping a folder or the file for a
 * link meanwhile gets PATH_TRAVERSAL, never a write, read or chown outside.
 * With O_CREAT, missing folders are created (given the root's owner, as `owner` is for the file).
 */
function inUserFile<T>(target: HostTarget, flags: number, work: (fd: number, owner: FolderOwner | undefined) => T): T {
  const names = namesBelow(target.root, target.hostPath);
  const name = names.pop() as string;
  const refuse = refusals(target);
  return withHeldFolder(target.root, names, refuse, { create: (flags & constants.O_CREAT) !== 0 }, (folder, owner) => {
    const fd = openInFolder(folder, name, flags, refuse);
    try {
      const stats = fs.fstatSync(fd);
      if (stats.isDirectory()) throw new ThinktankError("VALIDATION_FAILED", `${target.virtualPath} is a folder; give a file path`);
      if (!stats.isFile()) throw new ThinktankError("VALIDATION_FAILED", `${target.virtualPath} is not a regular file`);
      return work(fd, owner);
    } finally {
      fs.closeSync(fd);
    }
  });
}

/** The names from `root` down to `hostPath` (which lies inside it). */
function namesBelow(root: string, hostPath: string): string[] {
  return path.relative(root, hostPath).split(path.sep).filter((name) => name !== "");
}

function refusals(target: HostTarget): HeldFolderRefusals {
  return {
    escape: () => new ThinktankError("PATH_TRAVERSAL", `${target.virtualPath} leads outside ${target.userFolder ?? target.root} (through a symbolic link)`),
    missing: () => new ThinktankError("NOT_FOUND", `${target.virtualPath} does not exist`),
  };
}

function requireFile(target: VirtualTarget): string {
  if (target.kind === "file") return target.hostPath;
  if (target.kind === "missing") throw new ThinktankError("NOT_FOUND", `${target.virtualPath} does not exist`);
  throw new ThinktankError("VALIDATION_FAILED", `${target.virtualPath} is a folder; list it with ls`);
}

function writableTarget(target: VirtualTarget): HostTarget {
  if (target.kind === "listing" || !target.writable) {
    throw new ThinktankError("READ_ONLY_PATH", `${target.virtualPath} is read-only; write under /mnt/user-data/workspace or /mnt/user-data/outputs`);
  }
  if (target.kind === "folder") throw new ThinktankError("VALIDATION_FAILED", `${target.virtualPath} is a folder; give a file path`);
  return target;
}

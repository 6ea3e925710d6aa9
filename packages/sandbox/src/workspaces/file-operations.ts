import fs from "node:fs";
import path from "node:path";
import { ThinktankError } from "@thinktank/core";
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
 * workspace's owner, so sandboxed programs (bash, execute_code) can change them too.
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
    const bytes = fs.readFileSync(file);
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
    const existing = append && target.kind === "file" ? fs.statSync(target.hostPath).size : 0;
    if (existing + bytes > this.maxWriteBytes) throw new ThinktankError("PAYLOAD_TOO_LARGE", `${target.virtualPath} would be ${existing + bytes} bytes; the limit is ${this.maxWriteBytes}`);
    makeParents(target);
    fs.writeFileSync(target.hostPath, content, { flag: append ? "a" : "w" });
    adoptOwner(target.hostPath, target.root);
    return `${append ? "appended" : "wrote"} ${bytes} bytes to ${target.virtualPath}`;
  }

  /** Replaces the one occurrence of `oldText` (every one with `replaceAll`); refuses none, or several without `replaceAll`. */
  async replace(virtualPath: string, oldText: string, newText: string, replaceAll?: boolean): Promise<string> {
    const target = writableTarget(await this.files.resolve(virtualPath));
    const file = requireFile(target);
    if (oldText === "") throw new ThinktankError("VALIDATION_FAILED", "old_str must not be empty");
    const text = fs.readFileSync(file, "utf8");
    const count = text.split(oldText).length - 1;
    if (count === 0) throw new ThinktankError("VALIDATION_FAILED", `old_str was not found in ${target.virtualPath}; read the file and copy the text exactly (spaces and line breaks included)`);
    if (count > 1 && !replaceAll) throw new ThinktankError("VALIDATION_FAILED", `old_str appears ${count} times in ${target.virtualPath}; include more surrounding text to make it unique, or set replace_all`);
    const updated = replaceAll ? text.split(oldText).join(newText) : text.replace(oldText, () => newText);
    if (Buffer.byteLength(updated) > this.maxWriteBytes) throw new ThinktankError("PAYLOAD_TOO_LARGE", `${target.virtualPath} would exceed ${this.maxWriteBytes} bytes`);
    fs.writeFileSync(file, updated);
    return `replaced ${replaceAll ? count : 1} occurrence${(replaceAll ? count : 1) === 1 ? "" : "s"} in ${target.virtualPath}`;
  }

  /** A folder's entries, one a line, sorted, folders ending with '/'. */
  async list(virtualPath: string): Promise<string> {
    const target = await this.files.resolve(virtualPath);
    let names: string[];
    if (target.kind === "listing") names = [...target.entries];
    else if (target.kind === "folder") {
      names = fs
        .readdirSync(target.hostPath, { withFileTypes: true })
        .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
        .sort();
    } else if (target.kind === "file") return `${target.virtualPath} is a file; read it with read_file`;
    else throw new ThinktankError("NOT_FOUND", `${target.virtualPath} does not exist`);
    if (names.length === 0) return "(empty folder)";
    const shown = names.slice(0, this.maxListEntries);
    return names.length > shown.length ? `${shown.join("\n")}\n[... ${names.length - shown.length} more entries]` : shown.join("\n");
  }
}

function requireFile(target: VirtualTarget): string {
  if (target.kind === "file") return target.hostPath;
  if (target.kind === "missing") throw new ThinktankError("NOT_FOUND", `${target.virtualPath} does not exist`);
  throw new ThinktankError("VALIDATION_FAILED", `${target.virtualPath} is a folder; list it with ls`);
}

function writableTarget(target: VirtualTarget): Extract<VirtualTarget, { hostPath: string }> {
  if (target.kind === "listing" || !target.writable) {
    throw new ThinktankError("READ_ONLY_PATH", `${target.virtualPath} is read-only; write under /mnt/user-data/workspace or /mnt/user-data/outputs`);
  }
  if (target.kind === "folder") throw new ThinktankError("VALIDATION_FAILED", `${target.virtualPath} is a folder; give a file path`);
  return target;
}

/** Creates the missing folders above a new file, each owned like the folder's root. */
function makeParents(target: { hostPath: string; root: string }): void {
  const missing: string[] = [];
  for (let folder = path.dirname(target.hostPath); !fs.existsSync(folder); folder = path.dirname(folder)) missing.unshift(folder);
  for (const folder of missing) {
    fs.mkdirSync(folder);
    adoptOwner(folder, target.root);
  }
}

/** When the server runs as root and the folder belongs to the sandbox user, hand the new file or folder to that user. */
function adoptOwner(file: string, root: string): void {
  if (process.getuid?.() !== 0) return;
  const owner = fs.statSync(root);
  if (owner.uid !== 0) fs.chownSync(file, owner.uid, owner.gid);
}

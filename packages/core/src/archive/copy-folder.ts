import fs, { constants as fsConstants } from "node:fs";
import path from "node:path";
import { ThinktankError } from "../errors/thinktank-error.js";
import { defaultArchiveLimits } from "./archive-limits.js";
import type { ArchiveLimits } from "./archive-limits.js";
import { checkEntryPath } from "./check-entry-path.js";
import type { ExtractedArchive, ExtractZipOptions } from "./extract-zip.js";

interface FolderEntry {
  readonly segments: readonly string[];
  readonly kind: "file" | "directory";
  readonly mode: number;
  /** Device and inode seen by the walk: the file opened for the copy must be the same one. */
  readonly identity?: { readonly dev: number; readonly ino: number };
}

/**
 * Copies an untrusted package folder into `destination` (which must not exist yet) under the
 * same rules as extractZip: names are checked, symbolic links and special files are refused
 * (ARCHIVE_SYMLINK, ARCHIVE_SPECIAL_FILE), and so are files with more than one hard link
 * (ARCHIVE_HARD_LINK: the other name may be a host file outside the folder, and the copy
 * would carry its contents into the package). The entry count and the bytes actually read are
 * limited, and only regular files and folders are created. Everything is checked before the
 * first copy, and again on the open descriptor each file is copied from, so a file swapped
 * for a link or another file meanwhile is refused too; on any failure the destination is
 * removed. File work is synchronous in slices of a few milliseconds, as in extractZip.
 */
export async function copyFolder(source: string, destination: string, options: ExtractZipOptions = {}): Promise<ExtractedArchive> {
  const limits = options.limits ?? defaultArchiveLimits;
  const root = resolveFolder(source);
  const entries = walk(root, limits);
  fs.mkdirSync(destination, { mode: 0o700 });
  try {
    const files: string[] = [];
    const skipped: string[] = [];
    let bytes = 0;
    let sliceStart = performance.now();
    for (const entry of entries) {
      if (performance.now() - sliceStart > sliceMs) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
      const relative = entry.segments.join("/");
      if (options.skip?.(entry.segments)) {
        skipped.push(relative);
        continue;
      }
      const target = path.join(destination, ...entry.segments);
      if (entry.kind === "directory") {
        fs.mkdirSync(target, { recursive: true, mode: 0o755 });
        continue;
      }
      const data = readRegularFile(path.join(root, ...entry.segments), relative, entry.identity, limits);
      bytes += data.length;
      if (bytes > limits.maxTotalBytes) {
        throw new ThinktankError("ARCHIVE_TOO_LARGE", `the folder holds more than ${limits.maxTotalBytes} bytes (reached at "${relative}")`);
      }
      fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o755 });
      fs.writeFileSync(target, data, { flag: "wx", mode: entry.mode });
      files.push(relative);
    }
    fs.chmodSync(destination, 0o755);
    return { files, skipped, bytes };
  } catch (error) {
    fs.rmSync(destination, { recursive: true, force: true });
    throw error;
  }
}

const sliceMs = 8;

function resolveFolder(source: string): string {
  try {
    const real = fs.realpathSync(source);
    if (fs.statSync(real).isDirectory()) return real;
  } catch (error) {
    throw new ThinktankError("NOT_FOUND", `folder not found: ${source}`, { cause: error });
  }
  throw new ThinktankError("UNSUPPORTED_SOURCE", `${source} is not a folder`);
}

/** Lists the tree depth first in a stable (sorted) order, refusing links and special files. */
function walk(root: string, limits: ArchiveLimits): FolderEntry[] {
  const entries: FolderEntry[] = [];
  const pending: string[][] = [[]];
  while (pending.length > 0) {
    const segments = pending.pop() as string[];
    const children = fs.readdirSync(path.join(root, ...segments), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const child of children) {
      const childSegments = [...segments, child.name];
      const relative = childSegments.join("/");
      checkEntryPath(relative);
      if (entries.length >= limits.maxEntries) {
        throw new ThinktankError("ARCHIVE_TOO_MANY_ENTRIES", `the folder has more than ${limits.maxEntries} entries`);
      }
      if (child.isSymbolicLink()) throw new ThinktankError("ARCHIVE_SYMLINK", `"${relative}" is a symbolic link; links are not allowed`);
      if (child.isDirectory()) {
        entries.push({ segments: childSegments, kind: "directory", mode: 0o755 });
        pending.push(childSegments);
      } else if (child.isFile()) {
        const stat = fs.lstatSync(path.join(root, ...childSegments));
        checkOneLink(stat, relative);
        if (stat.size > limits.maxFileBytes) {
          throw new ThinktankError("ARCHIVE_TOO_LARGE", `"${relative}" has ${stat.size} bytes; one file may have at most ${limits.maxFileBytes}`);
        }
        entries.push({ segments: childSegments, kind: "file", mode: stat.mode & 0o100 ? 0o755 : 0o644, identity: { dev: stat.dev, ino: stat.ino } });
      } else {
        throw new ThinktankError("ARCHIVE_SPECIAL_FILE", `"${relative}" is a device, FIFO or socket; only files and folders are allowed`);
      }
    }
  }
  return entries;
}

function checkOneLink(stat: fs.Stats, relative: string): void {
  if (stat.nlink > 1) {
    throw new ThinktankError("ARCHIVE_HARD_LINK", `"${relative}" has ${stat.nlink} hard links; a file in a package folder may have only its own name`);
  }
}

/**
 * Reads a file without following a link swapped in since the walk: the checks run on the open
 * descriptor (a regular file, one link, the inode the walk saw) and the bytes come from it.
 */
function readRegularFile(file: string, relative: string, identity: FolderEntry["identity"], limits: ArchiveLimits): Buffer {
  let descriptor: number;
  try {
    descriptor = fs.openSync(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") throw new ThinktankError("ARCHIVE_SYMLINK", `"${relative}" is a symbolic link; links are not allowed`);
    throw error;
  }
  try {
    const stat = fs.fstatSync(descriptor);
    if (!stat.isFile()) throw new ThinktankError("ARCHIVE_SPECIAL_FILE", `"${relative}" is not a regular file`);
    checkOneLink(stat, relative);
    if (identity && (stat.dev !== identity.dev || stat.ino !== identity.ino)) {
      throw new ThinktankError("CONFLICT", `"${relative}" was replaced by another file while the folder was being copied; try again once it stops changing`);
    }
    const chunks: Buffer[] = [];
    let total = 0;
    const chunk = Buffer.alloc(64 * 1024);
    for (;;) {
      const bytesRead = fs.readSync(descriptor, chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > limits.maxFileBytes) {
        throw new ThinktankError("ARCHIVE_TOO_LARGE", `"${relative}" has more than ${limits.maxFileBytes} bytes; that is the limit for one file`);
      }
      chunks.push(Buffer.from(chunk.subarray(0, bytesRead)));
    }
    return Buffer.concat(chunks, total);
  } finally {
    fs.closeSync(descriptor);
  }
}

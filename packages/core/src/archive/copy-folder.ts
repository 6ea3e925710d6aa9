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
  /** The file to read: the entry itself, or the target of a link to a file inside the folder. */
  readonly from?: string;
  /** Device and inode seen by the walk: the file opened for the copy must be the same one. */
  readonly identity?: { readonly dev: number; readonly ino: number };
}

export interface CopyFolderOptions extends ExtractZipOptions {
  /**
   * What to do with a symbolic link. `refuse`: ARCHIVE_SYMLINK. `copy-inside`: a link whose
   * target (every link on the way resolved) is a file or folder inside the source folder is
   * copied as that file's or folder's content, so the copy holds no links at all (`AGENTS.md ->
   * CLAUDE.md` in a git checkout); a link that leaves the folder, dangles, or leads to a folder
   * around itself (a loop) is still ARCHIVE_SYMLINK. Copies count against every limit.
   * @default "refuse"
   */
  readonly links?: "refuse" | "copy-inside";
}

export interface CopiedFolder extends ExtractedArchive {
  /** Links copied as their target's content (`copy-inside`): the link's path and its target's, relative. */
  readonly linked: readonly { readonly path: string; readonly target: string }[];
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
export async function copyFolder(source: string, destination: string, options: CopyFolderOptions = {}): Promise<CopiedFolder> {
  const limits = options.limits ?? defaultArchiveLimits;
  const root = resolveFolder(source);
  const linked: { path: string; target: string }[] = [];
  const entries = walk(root, limits, options.links === "copy-inside" ? linked : undefined);
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
      const data = readRegularFile(entry.from ?? path.join(root, ...entry.segments), relative, entry.identity, limits);
      bytes += data.length;
      if (bytes > limits.maxTotalBytes) {
        throw new ThinktankError("ARCHIVE_TOO_LARGE", `the folder holds more than ${limits.maxTotalBytes} bytes (reached at "${relative}")`);
      }
      fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o755 });
      fs.writeFileSync(target, data, { flag: "wx", mode: entry.mode });
      files.push(relative);
    }
    fs.chmodSync(destination, 0o755);
    return { files, skipped, bytes, linked };
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

/**
 * Lists the tree depth first in a stable (sorted) order, refusing special files, and links
 * unless `linked` collects the ones copied as their target (see CopyFolderOptions.links).
 * Each folder is listed from its real path: a linked folder's content is walked where it is.
 */
function walk(root: string, limits: ArchiveLimits, linked: { path: string; target: string }[] | undefined): FolderEntry[] {
  const entries: FolderEntry[] = [];
  const pending: { segments: string[]; real: string }[] = [{ segments: [], real: root }];
  while (pending.length > 0) {
    const { segments, real } = pending.pop() as { segments: string[]; real: string };
    const children = fs.readdirSync(real, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const child of children) {
      const childSegments = [...segments, child.name];
      const relative = childSegments.join("/");
      checkEntryPath(relative);
      if (entries.length >= limits.maxEntries) {
        throw new ThinktankError("ARCHIVE_TOO_MANY_ENTRIES", `the folder has more than ${limits.maxEntries} entries`);
      }
      let at = path.join(real, child.name);
      let kind: "directory" | "file" | "other" = child.isDirectory() ? "directory" : child.isFile() ? "file" : "other";
      if (child.isSymbolicLink()) {
        if (!linked) throw new ThinktankError("ARCHIVE_SYMLINK", `"${relative}" is a symbolic link; links are not allowed`);
        at = linkTargetInside(root, real, at, relative);
        const stat = fs.statSync(at);
        kind = stat.isDirectory() ? "directory" : stat.isFile() ? "file" : "other";
        linked.push({ path: relative, target: path.relative(root, at).split(path.sep).join("/") });
      }
      if (kind === "directory") {
        entries.push({ segments: childSegments, kind: "directory", mode: 0o755 });
        pending.push({ segments: childSegments, real: at });
      } else if (kind === "file") {
        const stat = fs.lstatSync(at);
        checkOneLink(stat, relative);
        if (stat.size > limits.maxFileBytes) {
          throw new ThinktankError("ARCHIVE_TOO_LARGE", `"${relative}" has ${stat.size} bytes; one file may have at most ${limits.maxFileBytes}`);
        }
        entries.push({ segments: childSegments, kind: "file", mode: stat.mode & 0o100 ? 0o755 : 0o644, from: at, identity: { dev: stat.dev, ino: stat.ino } });
      } else {
        throw new ThinktankError("ARCHIVE_SPECIAL_FILE", `"${relative}" is a device, FIFO or socket; only files and folders are allowed`);
      }
    }
  }
  return entries;
}

/**
 * The real path a link leads to, when that is inside `root` and not a folder around the link
 * itself (which would copy forever); else ARCHIVE_SYMLINK. `parent` is the real folder holding it.
 */
function linkTargetInside(root: string, parent: string, link: string, relative: string): string {
  let target: string;
  try {
    target = fs.realpathSync(link);
  } catch {
    throw new ThinktankError("ARCHIVE_SYMLINK", `"${relative}" is a symbolic link to ${JSON.stringify(fs.readlinkSync(link))}, which does not exist`);
  }
  const inside = path.relative(root, target);
  if (inside.startsWith("..") || path.isAbsolute(inside)) {
    throw new ThinktankError("ARCHIVE_SYMLINK", `"${relative}" is a symbolic link leading outside the folder; only links to files and folders inside it are allowed`);
  }
  const around = path.relative(target, parent);
  if (!around.startsWith("..") && !path.isAbsolute(around)) {
    throw new ThinktankError("ARCHIVE_SYMLINK", `"${relative}" is a symbolic link to a folder that holds it (a loop)`);
  }
  return target;
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

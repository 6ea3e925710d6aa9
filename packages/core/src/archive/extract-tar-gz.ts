import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { ThinktankError } from "../errors/thinktank-error.js";
import { defaultArchiveLimits } from "./archive-limits.js";
import type { ArchiveLimits } from "./archive-limits.js";
import { checkEntryPath } from "./check-entry-path.js";
import type { ExtractedArchive, ExtractZipOptions } from "./extract-zip.js";

interface TarEntry {
  readonly path: string;
  readonly segments: readonly string[];
  readonly kind: "file" | "directory";
  readonly mode: number;
  readonly data: Buffer;
}

const block = 512;

/**
 * Extracts an untrusted .tar.gz (an npm package tarball) into `destination`, which must not
 * exist yet, under the same rules as extractZip: the gunzipped size is capped while inflating
 * (total, and the compression ratio past ratioFloorBytes), every entry is checked before the
 * first byte is written (names as checkEntryPath; entry count; per-file size; header
 * checksums), and only regular files and folders are created. Links are ARCHIVE_SYMLINK or
 * ARCHIVE_HARD_LINK, devices and FIFOs ARCHIVE_SPECIAL_FILE; pax and GNU long names are read,
 * global pax headers ignored. On any failure the destination is removed.
 */
export async function extractTarGz(archive: Buffer, destination: string, options: ExtractZipOptions = {}): Promise<ExtractedArchive> {
  const limits = options.limits ?? defaultArchiveLimits;
  const tar = gunzipWithinLimits(archive, limits);
  const entries = readTarEntries(tar, limits);
  fs.mkdirSync(destination, { mode: 0o700 });
  try {
    const files: string[] = [];
    const skipped: string[] = [];
    let bytes = 0;
    for (const entry of entries) {
      if (options.skip?.(entry.segments)) {
        skipped.push(entry.path);
        continue;
      }
      const target = path.join(destination, ...entry.segments);
      if (entry.kind === "directory") {
        fs.mkdirSync(target, { recursive: true, mode: 0o755 });
        continue;
      }
      fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o755 });
      // 'wx': never follow or replace anything already there (a name listed twice is refused).
      try {
        fs.writeFileSync(target, entry.data, { flag: "wx", mode: entry.mode });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") throw new ThinktankError("ARCHIVE_BAD_NAME", `the archive holds "${entry.path}" twice`);
        throw error;
      }
      bytes += entry.data.length;
      files.push(entry.path);
    }
    fs.chmodSync(destination, 0o755);
    return { files, skipped, bytes };
  } catch (error) {
    fs.rmSync(destination, { recursive: true, force: true });
    throw error;
  }
}

function gunzipWithinLimits(archive: Buffer, limits: ArchiveLimits): Buffer {
  if (archive.length < 2 || archive[0] !== 0x1f || archive[1] !== 0x8b) throw new ThinktankError("ARCHIVE_UNSUPPORTED", "the file is not a gzip-compressed tar archive");
  const ratioCap = Math.max(limits.ratioFloorBytes, limits.maxCompressionRatio * archive.length);
  // A tar of maxTotalBytes of content also holds headers and padding: leave room for them.
  const sizeCap = limits.maxTotalBytes + (limits.maxEntries + 2) * 2 * block;
  const cap = Math.min(ratioCap, sizeCap);
  try {
    return zlib.gunzipSync(archive, { maxOutputLength: cap + 1 });
  } catch (error) {
    if (error instanceof RangeError && (error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
      if (ratioCap < sizeCap) throw new ThinktankError("ARCHIVE_COMPRESSION_RATIO", `the archive inflates to more than ${limits.maxCompressionRatio} times its ${archive.length} compressed bytes`);
      throw new ThinktankError("ARCHIVE_TOO_LARGE", `the archive inflates to more than ${limits.maxTotalBytes} bytes`);
    }
    throw new ThinktankError("ARCHIVE_CORRUPT", `the archive does not gunzip: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

function readTarEntries(tar: Buffer, limits: ArchiveLimits): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  let total = 0;
  let longName: string | undefined;
  while (offset + block <= tar.length) {
    const header = tar.subarray(offset, offset + block);
    if (header.every((byte) => byte === 0)) break; // the end-of-archive blocks
    checkChecksum(header);
    const size = readSize(header);
    const type = String.fromCharCode(header[156] ?? 0);
    const dataStart = offset + block;
    const dataEnd = dataStart + size;
    if (dataEnd > tar.length) throw new ThinktankError("ARCHIVE_CORRUPT", "the archive ends inside an entry");
    const data = tar.subarray(dataStart, dataEnd);
    offset = dataStart + Math.ceil(size / block) * block;
    if (type === "x" || type === "L") {
      longName = type === "L" ? cString(data) : paxPath(data);
      continue;
    }
    if (type === "g") continue;
    const name = longName ?? joinName(cString(header.subarray(345, 500)), cString(header.subarray(0, 100)));
    longName = undefined;
    const shown = JSON.stringify(name);
    if (entries.length >= limits.maxEntries) throw new ThinktankError("ARCHIVE_TOO_MANY_ENTRIES", `the archive has more than ${limits.maxEntries} entries`);
    const segments = checkEntryPath(name);
    if (type === "2") throw new ThinktankError("ARCHIVE_SYMLINK", `entry ${shown} is a symbolic link; links are not allowed`);
    if (type === "1") throw new ThinktankError("ARCHIVE_HARD_LINK", `entry ${shown} is a hard link; links are not allowed`);
    if (type === "3" || type === "4" || type === "6") throw new ThinktankError("ARCHIVE_SPECIAL_FILE", `entry ${shown} is a device or FIFO; only files and folders are allowed`);
    if (type !== "0" && type !== "\0" && type !== "7" && type !== "5") throw new ThinktankError("ARCHIVE_UNSUPPORTED", `entry ${shown} has the tar type '${type}'`);
    if (type === "5") {
      entries.push({ path: segments.join("/"), segments, kind: "directory", mode: 0o755, data: Buffer.alloc(0) });
      continue;
    }
    if (size > limits.maxFileBytes) throw new ThinktankError("ARCHIVE_TOO_LARGE", `entry ${shown} has ${size} bytes; one file may have at most ${limits.maxFileBytes}`);
    total += size;
    if (total > limits.maxTotalBytes) throw new ThinktankError("ARCHIVE_TOO_LARGE", `the archive holds more than ${limits.maxTotalBytes} bytes (reached at ${shown})`);
    const mode = Number.parseInt(cString(header.subarray(100, 108)) || "0", 8);
    entries.push({ path: segments.join("/"), segments, kind: "file", mode: mode & 0o100 ? 0o755 : 0o644, data });
  }
  return entries;
}

function checkChecksum(header: Buffer): void {
  const written = Number.parseInt(cString(header.subarray(148, 156)).trim() || "NaN", 8);
  let sum = 0;
  for (let i = 0; i < block; i++) sum += i >= 148 && i < 156 ? 0x20 : (header[i] as number);
  if (written !== sum) throw new ThinktankError("ARCHIVE_CORRUPT", "a tar header fails its checksum (not a tar archive, or a damaged one)");
}

function readSize(header: Buffer): number {
  const field = header.subarray(124, 136);
  // Base-256 (GNU) for sizes past 8 GiB: far past any limit, so refuse rather than decode.
  if (((field[0] as number) & 0x80) !== 0) throw new ThinktankError("ARCHIVE_TOO_LARGE", "a tar entry declares a size past 8 GiB");
  const size = Number.parseInt(cString(field).trim() || "0", 8);
  if (!Number.isSafeInteger(size) || size < 0) throw new ThinktankError("ARCHIVE_CORRUPT", "a tar header has an unreadable size");
  return size;
}

function cString(bytes: Buffer): string {
  const end = bytes.indexOf(0);
  return bytes.subarray(0, end < 0 ? bytes.length : end).toString("utf8");
}

function joinName(prefix: string, name: string): string {
  return prefix ? `${prefix}/${name}` : name;
}

/** The `path` record of a pax header ("<length> path=<value>\n" records). */
function paxPath(data: Buffer): string | undefined {
  let offset = 0;
  let found: string | undefined;
  while (offset < data.length) {
    const space = data.indexOf(0x20, offset);
    if (space < 0) break;
    const length = Number.parseInt(data.subarray(offset, space).toString("ascii"), 10);
    if (!Number.isSafeInteger(length) || length <= 0 || offset + length > data.length) throw new ThinktankError("ARCHIVE_CORRUPT", "a pax header is malformed");
    const record = data.subarray(space + 1, offset + length - 1).toString("utf8");
    if (record.startsWith("path=")) found = record.slice(5);
    offset += length;
  }
  return found;
}

import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { ThinktankError, isThinktankError } from "../errors/thinktank-error.js";
import { defaultArchiveLimits } from "./archive-limits.js";
import type { ArchiveLimits } from "./archive-limits.js";
import { readZipEntries } from "./read-zip-entries.js";
import type { ZipEntryPlan } from "./read-zip-entries.js";

/** Synchronous work runs at most this long before the event loop gets a turn. */
const sliceMs = 8;

export interface ExtractZipOptions {
  /** @default defaultArchiveLimits */
  readonly limits?: ArchiveLimits;
  /**
   * Entries to leave out (given their cleaned path segments), e.g. `__MACOSX` folders.
   * Skipped entries are still checked: a symlink is refused wherever it sits.
   * @default nothing is skipped
   */
  readonly skip?: (segments: readonly string[]) => boolean;
}

export interface ExtractedArchive {
  /** Relative paths ("a/b.txt") of the files written, in archive order. */
  readonly files: readonly string[];
  /** Relative paths of the entries left out by `skip`. */
  readonly skipped: readonly string[];
  /** Uncompressed bytes written, as counted (never as declared). */
  readonly bytes: number;
}

/**
 * Extracts an untrusted zip (a buffer, or the path of a file) into `destination`, a folder
 * that must not exist yet (its parent must). Every entry is checked before the first byte is
 * written (see readZipEntries); then each file is inflated with a hard cap on its output,
 * so the per-file, total and compression-ratio limits hold whatever the headers declare, and
 * its size and CRC are compared with the central directory. Only regular files and folders
 * are ever created (never links), with mode 0644 or 0755. On any failure the destination is
 * removed, so nothing is left behind; the error is a ThinktankError with a distinct code.
 *
 * Inflating and writing are synchronous, in slices of a few milliseconds between which the
 * event loop runs: an awaited call per file costs a thread-pool round trip, which made a
 * 500-file archive ten times slower, and far worse on a busy machine.
 */
export async function extractZip(archive: Buffer | string, destination: string, options: ExtractZipOptions = {}): Promise<ExtractedArchive> {
  const limits = options.limits ?? defaultArchiveLimits;
  const buffer = typeof archive === "string" ? await readArchiveFile(archive, limits) : archive;
  if (buffer.length > limits.maxTotalBytes) {
    throw new ThinktankError("ARCHIVE_TOO_LARGE", `the archive is ${buffer.length} bytes; at most ${limits.maxTotalBytes} are allowed`);
  }
  const plans = readZipEntries(buffer, limits);
  fs.mkdirSync(destination, { mode: 0o700 });
  try {
    const result = await writeEntries(plans, destination, limits, options.skip);
    fs.chmodSync(destination, 0o755);
    return result;
  } catch (error) {
    fs.rmSync(destination, { recursive: true, force: true });
    throw error;
  }
}

async function readArchiveFile(file: string, limits: ArchiveLimits): Promise<Buffer> {
  let stat;
  try {
    stat = await fs.promises.stat(file);
  } catch (error) {
    throw new ThinktankError("NOT_FOUND", `archive not found: ${file}`, { cause: error });
  }
  if (!stat.isFile()) throw new ThinktankError("ARCHIVE_NOT_ZIP", `${file} is not a regular file`);
  if (stat.size > limits.maxTotalBytes) {
    throw new ThinktankError("ARCHIVE_TOO_LARGE", `${file} is ${stat.size} bytes; at most ${limits.maxTotalBytes} are allowed`);
  }
  return fs.promises.readFile(file);
}

async function writeEntries(
  plans: readonly ZipEntryPlan[],
  destination: string,
  limits: ArchiveLimits,
  skip: ((segments: readonly string[]) => boolean) | undefined,
): Promise<ExtractedArchive> {
  const files: string[] = [];
  const skipped: string[] = [];
  let totalBytes = 0;
  let totalCompressed = 0;
  let sliceStart = performance.now();
  const made = new Set<string>([destination]);
  const makeFolder = (folder: string): void => {
    if (made.has(folder)) return;
    fs.mkdirSync(folder, { recursive: true, mode: 0o755 });
    made.add(folder);
  };
  for (const plan of plans) {
    if (performance.now() - sliceStart > sliceMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
    if (skip?.(plan.segments)) {
      skipped.push(plan.path);
      continue;
    }
    const target = path.join(destination, ...plan.segments);
    if (plan.kind === "directory") {
      makeFolder(target);
      continue;
    }
    const compressed = readCompressed(plan);
    const data = inflateWithinLimits(plan, compressed, limits, totalBytes);
    totalBytes += data.length;
    totalCompressed += compressed.length;
    if (totalBytes > limits.ratioFloorBytes && totalBytes > limits.maxCompressionRatio * Math.max(1, totalCompressed)) {
      throw new ThinktankError(
        "ARCHIVE_COMPRESSION_RATIO",
        `the archive inflates to more than ${limits.maxCompressionRatio} times its compressed size (${totalBytes} from ${totalCompressed} bytes)`,
      );
    }
    makeFolder(path.dirname(target));
    // 'wx': never follow or replace anything already at the target.
    fs.writeFileSync(target, data, { flag: "wx", mode: plan.mode });
    files.push(plan.path);
  }
  return { files, skipped, bytes: totalBytes };
}

function readCompressed(plan: ZipEntryPlan): Buffer {
  try {
    return plan.compressedData();
  } catch (error) {
    throw new ThinktankError("ARCHIVE_CORRUPT", `entry "${plan.path}" cannot be read: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/** Inflates one entry with its output capped by the tightest limit, and reports which limit it broke. */
function inflateWithinLimits(plan: ZipEntryPlan, compressed: Buffer, limits: ArchiveLimits, bytesSoFar: number): Buffer {
  const caps = [
    { bytes: limits.maxFileBytes, breach: () => new ThinktankError("ARCHIVE_TOO_LARGE", `entry "${plan.path}" inflates to more than ${limits.maxFileBytes} bytes, the limit for one file`) },
    {
      bytes: limits.maxTotalBytes - bytesSoFar,
      breach: () => new ThinktankError("ARCHIVE_TOO_LARGE", `the archive inflates to more than ${limits.maxTotalBytes} bytes (reached at "${plan.path}")`),
    },
    {
      bytes: Math.max(limits.ratioFloorBytes, limits.maxCompressionRatio * compressed.length),
      breach: () =>
        new ThinktankError("ARCHIVE_COMPRESSION_RATIO", `entry "${plan.path}" inflates to more than ${limits.maxCompressionRatio} times its ${compressed.length} compressed bytes`),
    },
  ];
  const tightest = caps.reduce((a, b) => (b.bytes < a.bytes ? b : a));
  let data: Buffer;
  if (plan.method === 0) {
    data = compressed;
  } else {
    try {
      data = zlib.inflateRawSync(compressed, { maxOutputLength: Math.max(1, tightest.bytes + 1) });
    } catch (error) {
      if (isBufferTooLarge(error)) throw tightest.breach();
      if (isThinktankError(error)) throw error;
      throw new ThinktankError("ARCHIVE_CORRUPT", `entry "${plan.path}" does not inflate: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }
  if (data.length > tightest.bytes) throw tightest.breach();
  if (data.length !== plan.declaredSize) {
    throw new ThinktankError("ARCHIVE_CORRUPT", `entry "${plan.path}" declares ${plan.declaredSize} bytes but holds ${data.length}`);
  }
  if (zlib.crc32(data) >>> 0 !== plan.crc) throw new ThinktankError("ARCHIVE_CORRUPT", `entry "${plan.path}" fails its CRC check`);
  return data;
}

function isBufferTooLarge(error: unknown): boolean {
  return error instanceof RangeError && (error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE";
}

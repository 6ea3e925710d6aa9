import AdmZip from "adm-zip";
import { ThinktankError } from "../errors/thinktank-error.js";
import type { ArchiveLimits } from "./archive-limits.js";
import { checkEntryPath } from "./check-entry-path.js";

/** One checked entry of a zip's central directory. Sizes are as declared: never trust them for limits. */
export interface ZipEntryPlan {
  readonly name: string;
  /** The cleaned relative path ("a/b.txt"). */
  readonly path: string;
  readonly segments: readonly string[];
  readonly kind: "file" | "directory";
  /** Permission bits to write: 0o755 when the archive marks the file executable, else 0o644. */
  readonly mode: number;
  readonly method: number;
  readonly declaredSize: number;
  readonly compressedSize: number;
  readonly crc: number;
  /** Reads the raw (still compressed) bytes of the entry. */
  readonly compressedData: () => Buffer;
}

const fileTypeMask = 0o170000;
const fileTypes = { fifo: 0o010000, character: 0o020000, directory: 0o040000, block: 0o060000, regular: 0o100000, symlink: 0o120000, socket: 0o140000 };
const stored = 0;
const deflated = 8;
const encryptedFlag = 0x1;
const zipSignatures = [Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from([0x50, 0x4b, 0x05, 0x06])];

/**
 * Parses a zip's central directory with adm-zip and checks every entry before anything is
 * written: the entry count, names (see checkEntryPath), symlinks and special files (from the
 * Unix mode in the external attributes), encryption and compression method, duplicates and
 * file-versus-folder clashes, and the declared sizes (a cheap early refusal; the extractor
 * still counts the real bytes).
 */
export function readZipEntries(archive: Buffer, limits: ArchiveLimits): ZipEntryPlan[] {
  if (!zipSignatures.some((signature) => archive.subarray(0, 4).equals(signature))) {
    throw new ThinktankError("ARCHIVE_NOT_ZIP", "the file is not a zip archive (no zip signature at its start)");
  }
  let zip: AdmZip;
  try {
    zip = new AdmZip(archive, { readEntries: false, noSort: true });
  } catch (error) {
    throw new ThinktankError("ARCHIVE_NOT_ZIP", `the file is not a readable zip archive: ${describe(error)}`, { cause: error });
  }
  const declaredCount = zip.getEntryCount();
  if (declaredCount > limits.maxEntries) {
    throw new ThinktankError("ARCHIVE_TOO_MANY_ENTRIES", `the archive has ${declaredCount} entries; at most ${limits.maxEntries} are allowed`);
  }
  let entries: AdmZip.IZipEntry[];
  try {
    entries = zip.getEntries().filter((entry) => !(entry as { temporary?: boolean }).temporary);
  } catch (error) {
    if (/Duplicate entry name/.test(describe(error))) {
      throw new ThinktankError("ARCHIVE_BAD_NAME", `the archive names an entry twice: ${describe(error)}`, { cause: error });
    }
    throw new ThinktankError("ARCHIVE_NOT_ZIP", `the archive's central directory is unreadable: ${describe(error)}`, { cause: error });
  }
  if (entries.length > limits.maxEntries) {
    throw new ThinktankError("ARCHIVE_TOO_MANY_ENTRIES", `the archive has ${entries.length} entries; at most ${limits.maxEntries} are allowed`);
  }
  const plans = entries.map(planEntry);
  checkLayout(plans);
  let declaredTotal = 0;
  for (const plan of plans) {
    if (plan.declaredSize > limits.ratioFloorBytes && plan.declaredSize > limits.maxCompressionRatio * Math.max(1, plan.compressedSize)) {
      throw new ThinktankError(
        "ARCHIVE_COMPRESSION_RATIO",
        `entry "${plan.path}" declares ${plan.declaredSize} bytes from ${plan.compressedSize} compressed: more than ${limits.maxCompressionRatio} times`,
      );
    }
    if (plan.declaredSize > limits.maxFileBytes) {
      throw new ThinktankError("ARCHIVE_TOO_LARGE", `entry "${plan.path}" declares ${plan.declaredSize} bytes; one file may have at most ${limits.maxFileBytes}`);
    }
    declaredTotal += plan.declaredSize;
  }
  if (declaredTotal > limits.maxTotalBytes) {
    throw new ThinktankError("ARCHIVE_TOO_LARGE", `the archive declares ${declaredTotal} uncompressed bytes; at most ${limits.maxTotalBytes} are allowed`);
  }
  return plans;
}

function planEntry(entry: AdmZip.IZipEntry): ZipEntryPlan {
  const name = entry.entryName;
  if (entry.rawEntryName.includes(0)) throw new ThinktankError("ARCHIVE_BAD_NAME", `entry ${JSON.stringify(name)} contains a NUL byte`);
  const segments = checkEntryPath(name);
  const header = entry.header;
  const unixMode = (header.attr >>> 16) & 0xffff;
  const fileType = unixMode & fileTypeMask;
  if (fileType === fileTypes.symlink) throw new ThinktankError("ARCHIVE_SYMLINK", `entry "${name}" is a symbolic link; links are not allowed`);
  if (fileType === fileTypes.fifo || fileType === fileTypes.character || fileType === fileTypes.block || fileType === fileTypes.socket) {
    throw new ThinktankError("ARCHIVE_SPECIAL_FILE", `entry "${name}" is a device, FIFO or socket; only files and folders are allowed`);
  }
  const isDirectory = entry.isDirectory || fileType === fileTypes.directory;
  if ((header.flags & encryptedFlag) !== 0) throw new ThinktankError("ARCHIVE_UNSUPPORTED", `entry "${name}" is encrypted; encrypted archives are not supported`);
  if (!isDirectory && header.method !== stored && header.method !== deflated) {
    throw new ThinktankError("ARCHIVE_UNSUPPORTED", `entry "${name}" uses compression method ${header.method}; only stored and deflate are supported`);
  }
  return {
    name,
    path: segments.join("/"),
    segments,
    kind: isDirectory ? "directory" : "file",
    mode: unixMode & 0o100 ? 0o755 : 0o644,
    method: header.method,
    declaredSize: isDirectory ? 0 : header.size,
    compressedSize: header.compressedSize,
    crc: header.crc >>> 0,
    compressedData: () => entry.getCompressedData(),
  };
}

/** Refuses two entries with one path, and a path that is both a file and a folder. */
function checkLayout(plans: readonly ZipEntryPlan[]): void {
  const kinds = new Map<string, "file" | "directory">();
  for (const plan of plans) {
    const previous = kinds.get(plan.path);
    if (previous && (previous === "file" || plan.kind === "file")) {
      throw new ThinktankError("ARCHIVE_BAD_NAME", `the archive holds "${plan.path}" twice`);
    }
    kinds.set(plan.path, plan.kind);
  }
  for (const plan of plans) {
    for (let depth = 1; depth < plan.segments.length; depth++) {
      const parent = plan.segments.slice(0, depth).join("/");
      if (kinds.get(parent) === "file") {
        throw new ThinktankError("ARCHIVE_BAD_NAME", `"${parent}" is a file in the archive but also the folder of "${plan.path}"`);
      }
    }
  }
}

function describe(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/^ADM-ZIP: /, "");
}

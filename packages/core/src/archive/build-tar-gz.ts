import zlib from "node:zlib";

/** One entry for buildTarGz. */
export interface TarEntrySpec {
  /** Stored as written (up to 100 bytes: hostile names included). */
  readonly name: string;
  /** @default empty */
  readonly data?: string | Buffer;
  /** The tar type flag: "0" file, "5" folder, "2" symbolic link, "1" hard link, "3"/"4" devices, "6" FIFO. @default "0" */
  readonly type?: string;
  /** For links. */
  readonly linkName?: string;
  /** @default 0o644 */
  readonly mode?: number;
}

/**
 * Writes a gzip-compressed ustar archive byte by byte: packages for tests (an npm tarball's
 * `package/...` layout) and hostile ones (links, devices, '..'). Not meant for production packaging.
 */
export function buildTarGz(entries: readonly TarEntrySpec[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const data = Buffer.from(entry.data ?? "");
    const header = Buffer.alloc(512);
    header.write(entry.name, 0, 100, "utf8");
    header.write(octal(entry.mode ?? 0o644, 8), 100, "ascii");
    header.write(octal(0, 8), 108, "ascii");
    header.write(octal(0, 8), 116, "ascii");
    header.write(octal(data.length, 12), 124, "ascii");
    header.write(octal(0, 12), 136, "ascii");
    header.write("        ", 148, "ascii");
    header.write(entry.type ?? "0", 156, "ascii");
    if (entry.linkName) header.write(entry.linkName, 157, 100, "utf8");
    header.write("ustar\u000000", 257, "ascii");
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, "0")}\u0000 `, 148, "ascii");
    blocks.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return zlib.gzipSync(Buffer.concat(blocks));
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, "0")}\u0000`;
}

import zlib from "node:zlib";

/** One entry for buildZip. Every header field can be set, including lies (for hostile-archive tests). */
export interface ZipEntrySpec {
  /** The entry name exactly as stored (a trailing '/' marks a folder). */
  readonly name: string | Buffer;
  /** @default empty */
  readonly data?: string | Buffer;
  /** @default "deflate" for files with data, "store" otherwise */
  readonly method?: "store" | "deflate";
  /** Unix mode for the external attributes, e.g. 0o100644, 0o120777 (symlink), 0o010644 (FIFO). @default 0o100644, or 0o040755 for folders */
  readonly unixMode?: number;
  /** Uncompressed size written into both headers. @default the real size */
  readonly declaredSize?: number;
  /** CRC written into both headers. @default the real CRC */
  readonly crc?: number;
}

const dosTime = 0; // 00:00:00
const dosDate = (1 << 5) | 1; // 1980-01-01: fixed, so identical input gives identical bytes

/**
 * Writes a zip archive byte by byte. Real archives for tests and benchmarks, and hostile ones:
 * any name (absolute, '..', ':' ...), any Unix mode (symlinks, devices), and sizes or CRCs
 * that lie. Not meant for production packaging.
 */
export function buildZip(entries: readonly ZipEntrySpec[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = typeof entry.name === "string" ? Buffer.from(entry.name, "utf8") : entry.name;
    const isDirectory = name[name.length - 1] === 0x2f;
    const data = typeof entry.data === "string" ? Buffer.from(entry.data, "utf8") : (entry.data ?? Buffer.alloc(0));
    const method = entry.method ?? (data.length > 0 ? "deflate" : "store");
    const body = method === "deflate" ? zlib.deflateRawSync(data) : data;
    const crc = entry.crc ?? zlib.crc32(data) >>> 0;
    const size = entry.declaredSize ?? data.length;
    const mode = entry.unixMode ?? (isDirectory ? 0o040755 : 0o100644);
    const methodCode = method === "deflate" ? 8 : 0;

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(methodCode, 8);
    local.writeUInt16LE(dosTime, 10);
    local.writeUInt16LE(dosDate, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, body);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix, spec 2.0
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(methodCode, 10);
    central.writeUInt16LE(dosTime, 12);
    central.writeUInt16LE(dosDate, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((((mode & 0xffff) << 16) | (isDirectory ? 0x10 : 0)) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

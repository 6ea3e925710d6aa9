import zlib from "node:zlib";
import { Buffer } from "node:buffer";
import AdmZip from "adm-zip";
import { DocumentProblem } from "./document-problem.js";

/**
 * A DOCX, XLSX or PPTX package whose entries were all inflated once, each capped at its declared
 * size (which the host checked against the archive limits before the worker started) and compared
 * with it and its CRC: after this, no entry a parser reads can inflate past what was checked. A lie
 * in the headers (a bomb that declares a small size) is refused here, having inflated at most its
 * declared size plus one byte.
 */
export class CheckedZip {
  readonly #entries = new Map<string, AdmZip.IZipEntry>();

  constructor(data: Uint8Array, maxEntryBytes: number) {
    let zip: AdmZip;
    try {
      zip = new AdmZip(Buffer.from(data.buffer, data.byteOffset, data.byteLength), { readEntries: true, noSort: true });
    } catch {
      throw new DocumentProblem("the file is not a readable ZIP package");
    }
    for (const entry of zip.getEntries()) {
      if (entry.isDirectory) continue;
      const declared = entry.header.size;
      if (declared > maxEntryBytes) throw new DocumentProblem(`a part of the file would inflate to more than ${maxEntryBytes} bytes`);
      const data = inflateCapped(entry, declared);
      if (data.length !== declared || (zlib.crc32(data) >>> 0) !== (entry.header.crc >>> 0)) {
        throw new DocumentProblem("a part of the file does not match its declared size or checksum (a damaged file or a zip bomb)");
      }
      this.#entries.set(entry.entryName, entry);
    }
  }

  names(): string[] {
    return [...this.#entries.keys()];
  }

  /** An entry's text (UTF-8), or undefined when the package has no such entry. */
  text(name: string): string | undefined {
    const entry = this.#entries.get(name);
    return entry ? inflateCapped(entry, entry.header.size).toString("utf8") : undefined;
  }
}

function inflateCapped(entry: AdmZip.IZipEntry, declared: number): Buffer {
  const compressed = entry.getCompressedData();
  const method = entry.header.method;
  if (method === 0) return compressed;
  if (method !== 8) throw new DocumentProblem("a part of the file uses an unsupported compression method");
  try {
    return zlib.inflateRawSync(compressed, { maxOutputLength: Math.max(1, declared + 1) });
  } catch (error) {
    if (error instanceof RangeError) throw new DocumentProblem("a part of the file inflates past its declared size (a zip bomb)");
    throw new DocumentProblem("a part of the file does not inflate (a damaged file)");
  }
}

import crypto from "node:crypto";

/**
 * The marker a large string of a checkpoint is stored as (blob-ref-saver.ts):
 * `thinktank-blob:1:<sha256>:<bytes>`, where the string itself is kept once per thread under its
 * hash (`thinktank_checkpoint_blobs`), and `bytes` is the size of its JSON string literal (quotes
 * included) as UTF-8: what it takes in a response, known without reading it.
 *
 * Every string that starts with the prefix is stored as a blob whatever its length, so a stored
 * string that reads as a marker always is one: a message that only looks like a marker comes back as written.
 */
export const blobMarkerPrefix = "thinktank-blob:";
const markerPattern = /^thinktank-blob:1:([0-9a-f]{64}):(\d{1,15})$/;

/**
 * UTF-16 code units per stored chunk (128 KB of ASCII, at most ~384 KB of UTF-8): a chunk is read,
 * and written into a response, on its own, in well under a millisecond (SQLite reads a large value
 * page by page; a 768 KB one took 3 to 5 ms).
 */
const chunkChars = 128 * 1024;

export interface BlobRef {
  readonly sha256: string;
  /** UTF-8 bytes of the string's JSON literal, quotes included. */
  readonly bytes: number;
}

/** Strings shorter than this stay in the checkpoint. @default 16384 */
export const defaultBlobThreshold = 16 * 1024;

export function markerOf(ref: BlobRef): string {
  return `${blobMarkerPrefix}1:${ref.sha256}:${ref.bytes}`;
}

/** The reference a marker names; undefined for any other string. */
export function refOf(value: string): BlobRef | undefined {
  if (!value.startsWith(blobMarkerPrefix)) return undefined;
  const match = markerPattern.exec(value);
  return match ? { sha256: match[1] as string, bytes: Number(match[2]) } : undefined;
}

/** Whether a string goes to the blob table: a large one, or one that could be read as a marker. */
export function needsBlob(value: string, threshold: number): boolean {
  return value.length >= threshold || value.startsWith(blobMarkerPrefix);
}

/**
 * A string as stored: chunks, each the JSON literal of a slice (lossless, lone surrogates escaped;
 * a response copies a chunk's bytes between its quotes), and its reference (sha-256 of the chunks).
 */
export function encodeBlob(value: string): { ref: BlobRef; chunks: Buffer[] } {
  const hash = crypto.createHash("sha256");
  const chunks: Buffer[] = [];
  let bytes = 2;
  for (let start = 0; start < value.length || start === 0; start += chunkChars) {
    const chunk = Buffer.from(JSON.stringify(value.slice(start, start + chunkChars)), "utf8");
    hash.update(chunk);
    chunks.push(chunk);
    bytes += chunk.length - 2;
    if (value.length === 0) break;
  }
  return { ref: { sha256: hash.digest("hex"), bytes }, chunks };
}

/** One stored chunk back as the slice of the string it holds. */
export function decodeChunk(chunk: Uint8Array): string {
  return JSON.parse(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString("utf8")) as string;
}

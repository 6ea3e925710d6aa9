import crypto from "node:crypto";
import { Readable } from "node:stream";
import { blobMarkerPrefix, refOf } from "../persistence/blob-refs.js";
import type { SqlBlobStore } from "../persistence/sql-blob-store.js";
import { nextTurn } from "../runs/fair-turns.js";

/** Text of a document goes out in pieces of at most this many characters, a turn of the event loop apart. */
const pieceChars = 64 * 1024;

/**
 * A JSON document of one thread (a state, a thread record) whose strings may be blob markers
 * (blob-ref-saver.ts): its text made once with the markers left as tokens, and its size as the client
 * will get it, known without reading a blob. `pieces` writes it with each blob read chunk by chunk
 * into the text, a turn of the event loop between pieces, so no document, however large, holds
 * the loop for longer than a chunk or a 64 KB piece takes.
 */
export class ThreadJson {
  /** The document as given (with its markers). */
  readonly value: unknown;
  readonly threadId: string;
  /** UTF-8 bytes of the document with its blobs in it. */
  readonly bytes: number;
  readonly #text: string;
  readonly #token: string;
  readonly #markers: string[];

  constructor(value: unknown, threadId: string) {
    this.value = value;
    this.threadId = threadId;
    const nonce = crypto.randomBytes(12).toString("hex");
    const markers: string[] = [];
    // Markers become `"\u0000<nonce>:<n>"`: no string of the document can spell the nonce.
    const text = JSON.stringify(value, (_key, current: unknown) =>
      typeof current === "string" && current.startsWith(blobMarkerPrefix) && refOf(current) ? `\u0000${nonce}:${markers.push(current) - 1}` : current,
    ) as string | undefined;
    this.#text = text ?? "null";
    this.#token = `"\\u0000${nonce}:`;
    this.#markers = markers;
    let bytes = Buffer.byteLength(this.#text);
    for (const [index, marker] of markers.entries()) bytes += (refOf(marker)?.bytes ?? 0) - (this.#token.length + String(index).length + 1);
    this.bytes = bytes;
  }

  /** The document's bytes, blobs streamed in from the thread's blob table (a missing blob shows its marker). */
  async *pieces(blobs: SqlBlobStore): AsyncGenerator<Buffer> {
    const text = this.#text;
    let at = 0;
    while (at < text.length) {
      const token = text.indexOf(this.#token, at);
      const end = token < 0 ? text.length : token;
      for (let start = at; start < end; start += pieceChars) {
        yield Buffer.from(text.slice(start, Math.min(end, start + pieceChars)));
        await nextTurn();
      }
      if (token < 0) return;
      const close = text.indexOf('"', token + this.#token.length);
      const marker = this.#markers[Number(text.slice(token + this.#token.length, close))] as string;
      yield* this.#blob(blobs, marker);
      at = close + 1;
    }
  }

  async *#blob(blobs: SqlBlobStore, marker: string): AsyncGenerator<Buffer> {
    let found = false;
    for await (const chunk of blobs.chunks(this.threadId, refOf(marker)?.sha256 ?? "")) {
      if (!found) yield Buffer.from('"');
      found = true;
      // A chunk is a JSON string literal: its inside goes into the one literal of the whole string.
      yield chunk.subarray(1, chunk.length - 1);
    }
    yield Buffer.from(found ? '"' : JSON.stringify(marker));
  }
}

/** A response body: one document, or (`list`) a JSON array of them, streamed (ThreadJson.pieces). */
export function threadJsonBody(documents: ThreadJson | readonly ThreadJson[], blobs: SqlBlobStore): Readable {
  return Readable.from(piecesOf(documents, blobs), { objectMode: false });
}

async function* piecesOf(documents: ThreadJson | readonly ThreadJson[], blobs: SqlBlobStore): AsyncGenerator<Buffer> {
  if (documents instanceof ThreadJson) {
    yield* documents.pieces(blobs);
    return;
  }
  yield Buffer.from("[");
  for (const [index, document] of documents.entries()) {
    if (index > 0) yield Buffer.from(",");
    yield* document.pieces(blobs);
  }
  yield Buffer.from("]");
}

/** `value` with every marker replaced by its string, read from the thread's blobs: for answers kept in memory (a run's join result). */
export async function expandBlobMarkers<T>(value: T, threadId: string, blobs: SqlBlobStore): Promise<T> {
  if (typeof value === "string") return (refOf(value) ? ((await blobs.read(threadId, refOf(value)?.sha256 ?? "")) ?? value) : value) as T;
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const item of value) items.push(await expandBlobMarkers(item, threadId, blobs));
    return items as T;
  }
  const fields: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) fields[key] = await expandBlobMarkers(field, threadId, blobs);
  return fields as T;
}

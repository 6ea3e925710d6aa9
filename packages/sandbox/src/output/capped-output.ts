/**
 * Keeps the first `maxBytes` of a stream and counts the rest, so a program that prints 100 MB
 * costs the host `maxBytes` of memory. `text()` ends a cut stream with a visible marker.
 */
export class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private seen = 0;

  constructor(private readonly maxBytes: number) {}

  /** Adds a chunk; returns the total number of bytes seen so far. */
  push(chunk: Buffer): number {
    this.seen += chunk.length;
    const room = this.maxBytes - this.kept;
    if (room > 0) {
      const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
      this.chunks.push(Buffer.from(part));
      this.kept += part.length;
    }
    return this.seen;
  }

  /** The kept bytes, as received. */
  bytes(): Buffer {
    return Buffer.concat(this.chunks, this.kept);
  }

  get totalBytes(): number {
    return this.seen;
  }

  get truncated(): boolean {
    return this.seen > this.kept;
  }

  /** The kept text (never splitting a UTF-8 character), plus the marker when bytes were dropped. */
  text(note?: string): string {
    const kept = trimToCharacterBoundary(Buffer.concat(this.chunks, this.kept));
    if (!this.truncated) return kept.toString("utf8");
    const dropped = this.seen - kept.length;
    const count = `${dropped.toLocaleString("en-US")} ${dropped === 1 ? "byte" : "bytes"}`;
    return `${kept.toString("utf8")}\n[... truncated ${count}${note ? `; ${note}` : ""} ...]`;
  }
}

/** Drops an incomplete UTF-8 sequence at the end of a cut buffer. */
function trimToCharacterBoundary(buffer: Buffer): Buffer {
  let start = buffer.length - 1;
  // Walk back over at most 3 continuation bytes (10xxxxxx) to the lead byte of the last character.
  while (start >= 0 && buffer.length - start <= 4 && ((buffer[start] as number) & 0xc0) === 0x80) start--;
  if (start < 0) return buffer;
  const lead = buffer[start] as number;
  const expected = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return buffer.length - start < expected ? buffer.subarray(0, start) : buffer;
}

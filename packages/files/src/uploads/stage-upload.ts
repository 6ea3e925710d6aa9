import crypto from "node:crypto";
import fs from "node:fs";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { ThinktankError } from "@thinktank/core";

/** What streaming one part to its staging file found. */
export interface StagedFile {
  readonly size: number;
  /** Hex SHA-256 of the bytes. */
  readonly sha256: string;
}

/**
 * Streams `source` to `file` (created, never overwritten; 0600), hashing and counting on the way, so
 * memory stays at a stream's buffers whatever the size. Passing `maxBytes` (or `overBudget` saying
 * the request's bytes so far are too many) stops the copy at once with FILE_TOO_LARGE or the error
 * `overBudget` gives; a failed source (a client gone midway) rejects with its error. On any failure
 * the partial file is removed before this rejects.
 */
export async function stageUpload(source: Readable, file: string, maxBytes: number, name: string, overBudget?: (bytes: number) => ThinktankError | undefined): Promise<StagedFile> {
  const hash = crypto.createHash("sha256");
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > maxBytes) return done(new ThinktankError("FILE_TOO_LARGE", `${name} is larger than ${Math.round(maxBytes / 1024 / 1024)} MB (files.max_file_mb)`));
      const budget = overBudget?.(chunk.length);
      if (budget) return done(budget);
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(source, meter, fs.createWriteStream(file, { flags: "wx", mode: 0o600 }));
  } catch (error) {
    await fs.promises.rm(file, { force: true });
    // The source may still be flowing (multipart keeps the request's bytes coming): let it drain elsewhere.
    source.resume();
    throw error;
  }
  return { size, sha256: hash.digest("hex") };
}

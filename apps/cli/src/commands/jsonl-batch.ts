import fs from "node:fs";
import path from "node:path";
import { isThinktankError, ThinktankError } from "@thinktank/core";
import type { CliIo } from "../cli-command.js";

/**
 * Runs a `--batch FILE.jsonl` (or `-` for stdin) in one process: each non-blank line is a JSON
 * object handed to `answer`, whose value is printed as one JSON line, in order. A line that is not
 * an object, or that `answer` rejects, prints `{"line", "error": {"code", "message"}}` instead; the
 * exit code is then 1 and stderr says how many lines failed.
 */
export async function runJsonlBatch(file: string, io: CliIo, command: string, answer: (record: Readonly<Record<string, unknown>>) => unknown): Promise<number> {
  const text = file === "-" ? await readStream(io.stdin) : readBatchFile(path.resolve(io.cwd, file));
  let failed = 0;
  const lines = text.split(/\r?\n/);
  for (const [position, line] of lines.entries()) {
    if (line.trim() === "") continue;
    try {
      io.stdout.write(`${JSON.stringify(await answer(parseLine(line)))}\n`);
    } catch (error) {
      failed++;
      const code = isThinktankError(error) ? error.code : "INTERNAL";
      io.stdout.write(`${JSON.stringify({ line: position + 1, error: { code, message: (error as Error).message } })}\n`);
    }
  }
  if (failed > 0) io.stderr.write(`thinktank ${command}: ${failed} of the batch's lines failed (see their "error")\n`);
  return failed > 0 ? 1 : 0;
}

function parseLine(line: string): Readonly<Record<string, unknown>> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new ThinktankError("INVALID_JSON", `not valid JSON: ${(error as Error).message}`);
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new ThinktankError("VALIDATION_FAILED", 'expected an object like {"query": "..."}');
  return value as Record<string, unknown>;
}

function readBatchFile(file: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    throw new ThinktankError("NOT_FOUND", `cannot read the batch file ${file}: ${(error as Error).message}`, { cause: error });
  }
}

async function readStream(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks).toString("utf8");
}

import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { archiveLimitsFromConfig, isThinktankError, readZipEntries } from "@thinktank/core";
import type { ArchiveLimits, Config, Logger } from "@thinktank/core";
import { removeStaleFreshWorkspaces, type SandboxExecutor } from "@thinktank/sandbox";
import { bundleConverter, type BundleOutcome } from "./converter-bundle.js";
import { outcomeOfRun } from "./conversion-outcome.js";
import { documentKindOf, isZipPackage } from "./document-kinds.js";
import { sniffDocumentKind } from "./sniff-document-kind.js";
import type { ConversionJob, DocumentKind } from "./worker/conversion-job.js";

const mebibyte = 1024 * 1024;
/** Bytes kept before the document for the job's line (a name is at most 255 bytes). */
const jobRoom = 8192;
/** Where a PDF's worker finds pdfjs's character maps under bubblewrap (Deno reads them at their host path). */
const cMapMount = "/mnt/pdfjs-cmaps";

export type ConversionResult = { readonly ok: true; readonly bytes: number; readonly truncated: boolean } | { readonly ok: false; readonly reason: string };

/** Markdown versions of documents (PDF, DOCX, XLSX, PPTX, CSV, HTML), made in the sandbox. */
export interface DocumentConverter {
  /** True when `convert` reads this kind of file: by the name's extension, else by its MIME type. */
  accepts(name: string, mimeType: string): boolean;
  /**
   * Writes the Markdown version of `inputPath` to `outputPath` (replaced whole, or not touched).
   * Never throws: a document that cannot be converted (corrupt, encrypted, a zip bomb, too slow,
   * too big for the memory) is `{ ok: false, reason }`, a short sentence for the user that names
   * no host path. `truncated` when a bound (pages, cells, output size) stopped it; the Markdown says which.
   */
  convert(inputPath: string, outputPath: string, signal?: AbortSignal): Promise<ConversionResult>;
}

export interface DocumentConverterOptions {
  /**
   * `files.conversion` (timeout, memory, pages, cells, output), `files.max_file_mb` (the largest
   * document read), `gateway.archive` (the ZIP limits a DOCX, XLSX or PPTX is checked against
   * before any parser sees it) and `sandbox.workspaces_dir` (see `workRoot`).
   */
  readonly config: Pick<Config, "files" | "gateway" | "sandbox">;
  /** The sandbox the worker runs in: the service's executor (conversions share its concurrency limit). */
  readonly executor: SandboxExecutor;
  /** Where each conversion gets a new, empty working folder of its own (removed after). @default <sandbox.workspaces_dir>/.conversions */
  readonly workRoot?: string;
  /** Host-side failures (the worker cannot be bundled) are logged here. @default none */
  readonly logger?: Pick<Logger, "warn">;
}

/**
 * The document converter (docs: packages/files/README.md, "Conversions"). Each document is read
 * by a worker in the sandbox: a self-contained bundle of the parsers (made once, on first use) run
 * as a JavaScript program on the configured backend (bubblewrap or Deno), with the document on
 * stdin, no environment, no network, no file of the host but its own empty folder, a memory cap, a
 * wall clock that kills it whole and a cap on its output. A DOCX, XLSX or PPTX is refused before
 * the worker starts when its ZIP directory breaks the archive limits (core's readZipEntries), and
 * the worker inflates each entry once, capped at its declared size, before a parser sees it.
 */
export function createDocumentConverter(options: DocumentConverterOptions): DocumentConverter {
  const { config, executor } = options;
  const conversion = config.files.conversion;
  const archiveLimits = archiveLimitsFromConfig(config);
  const workRoot = options.workRoot ?? path.join(config.sandbox.workspaces_dir, ".conversions");
  const maxInputBytes = Math.floor(config.files.max_file_mb * mebibyte);
  const cMaps = pdfjsCMapFolder();
  // Folders of conversions a crashed service left behind (never a live process's).
  removeStaleFreshWorkspaces(workRoot);
  let bundle: Promise<BundleOutcome> | undefined;

  const workerSource = async (): Promise<BundleOutcome> => {
    bundle ??= bundleConverter();
    const outcome = await bundle;
    if (!outcome.ok) {
      bundle = undefined;
      options.logger?.warn({ problem: outcome.problem }, "document conversions are unavailable: the worker could not be bundled");
    }
    return outcome;
  };

  const run = async (inputPath: string, outputPath: string, signal: AbortSignal | undefined): Promise<ConversionResult> => {
    const name = path.basename(inputPath);
    const read = await readInput(inputPath, maxInputBytes, jobRoom);
    if (!read.ok) return read;
    const data = read.data;
    const kind = documentKindOf(name, undefined) ?? sniffDocumentKind(data);
    if (!kind) return { ok: false, reason: "the file is none of the formats converted (PDF, DOCX, XLSX, PPTX, CSV, HTML)" };
    if (isZipPackage(kind)) {
      const refused = checkPackage(data, kind, archiveLimits);
      if (refused) return { ok: false, reason: refused };
    }
    const backend = await executor.describeBackend();
    if (!backend.isolated) return { ok: false, reason: `documents are converted only in an isolating sandbox, and sandbox.backend is ${backend.backend}` };
    const source = await workerSource();
    if (!source.ok) return { ok: false, reason: "the converter is unavailable on this server" };
    const job: ConversionJob = {
      kind,
      name,
      maxPages: conversion.max_pages,
      maxCells: conversion.max_cells,
      maxOutputBytes: Math.floor(conversion.max_output_mb * mebibyte),
      maxEntryBytes: archiveLimits.maxFileBytes,
      cMapFolders: kind === "pdf" && cMaps ? [cMapMount, cMaps] : [],
    };
    fs.mkdirSync(workRoot, { recursive: true, mode: 0o711 });
    const stdoutBytes = job.maxOutputBytes + 4096;
    const stderrBytes = 16_384;
    const result = await executor.run({
      language: "javascript",
      source: source.source,
      workspaceDir: workRoot,
      freshWorkspace: true,
      // pdfjs-dist's own character maps, read-only, for PDFs alone.
      mounts: kind === "pdf" && cMaps ? [{ hostPath: cMaps, sandboxPath: cMapMount }] : [],
      env: {},
      stdin: withJob(read, job, jobRoom),
      timeoutMs: Math.ceil(conversion.timeout_seconds * 1000),
      ...(signal ? { signal } : {}),
      limits: {
        memoryMb: conversion.memory_mb,
        cpuSeconds: Math.ceil(conversion.timeout_seconds) + 5,
        maxStdoutBytes: stdoutBytes,
        maxStderrBytes: stderrBytes,
        killAfterOutputBytes: stdoutBytes + stderrBytes + 1,
      },
    });
    const outcome = outcomeOfRun(result, conversion);
    if (!outcome.ok) return outcome;
    const bytes = writeAtomically(outputPath, outcome.markdown);
    return { ok: true, bytes, truncated: outcome.truncated };
  };

  return {
    accepts: (name, mimeType) => documentKindOf(name, mimeType) !== undefined,
    async convert(inputPath, outputPath, signal) {
      if (signal?.aborted) return { ok: false, reason: "the conversion was cancelled" };
      try {
        return await run(inputPath, outputPath, signal);
      } catch (error) {
        options.logger?.warn({ err: error }, "a document conversion failed on the host");
        return { ok: false, reason: "the document could not be converted (a problem on the server)" };
      }
    },
  };
}

/** pdfjs-dist's `cmaps` folder, undefined when this installation has none. */
function pdfjsCMapFolder(): string | undefined {
  try {
    const folder = path.join(path.dirname(createRequire(import.meta.url).resolve("pdfjs-dist/package.json")), "cmaps");
    return fs.existsSync(folder) ? fs.realpathSync(folder) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads the document into one buffer after `room` spare bytes, where the job's line goes later: the
 * worker's stdin is then that one buffer, never a second copy of a 50 MiB document.
 */
async function readInput(file: string, maxBytes: number, room: number): Promise<{ ok: true; whole: Buffer; data: Buffer } | { ok: false; reason: string }> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return { ok: false, reason: "the file to convert does not exist" };
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { ok: false, reason: "only regular files are converted" };
    if (stat.size > maxBytes) return { ok: false, reason: `the file is larger than the ${Math.round(maxBytes / mebibyte)} MiB converted` };
    const whole = Buffer.allocUnsafe(room + stat.size);
    let filled = room;
    while (filled < whole.length) {
      const { bytesRead } = await handle.read(whole, filled, whole.length - filled, filled - room);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { ok: true, whole: whole.subarray(0, filled), data: whole.subarray(room, filled) };
  } finally {
    await handle.close();
  }
}

/** Writes the job's line into the room before the document: spaces (which JSON allows), the job, a line break. */
function withJob(read: { whole: Buffer; data: Buffer }, job: ConversionJob, room: number): Buffer {
  const line = Buffer.from(`${JSON.stringify(job)}\n`);
  if (line.length > room) return Buffer.concat([line, read.data]);
  read.whole.fill(0x20, 0, room - line.length);
  line.copy(read.whole, room - line.length);
  return read.whole;
}

/**
 * Core's archive checks on the package's central directory (entries, declared sizes, compression
 * ratio, names, links, encryption), nothing inflated: the reason when it is refused.
 */
function checkPackage(data: Buffer, kind: DocumentKind, limits: ArchiveLimits): string | undefined {
  try {
    readZipEntries(data, limits);
    return undefined;
  } catch (error) {
    if (!isThinktankError(error)) throw error;
    if (error.code === "ARCHIVE_NOT_ZIP") return `the file is not a ${kind.toUpperCase()} document (not a ZIP package)`;
    return `the ${kind.toUpperCase()} package was refused before unpacking: ${error.message}`;
  }
}

/** Writes beside the target and renames over it: a reader sees the old file or the whole new one. */
function writeAtomically(target: string, text: string): number {
  const temporary = `${target}.${crypto.randomBytes(6).toString("hex")}.partial`;
  try {
    fs.writeFileSync(temporary, text, { flag: "wx", mode: 0o644 });
    fs.renameSync(temporary, target);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
  return Buffer.byteLength(text);
}

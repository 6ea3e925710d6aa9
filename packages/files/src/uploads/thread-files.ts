import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import mime from "mime-types";
import { ThinktankError } from "@thinktank/core";
import { FileAccess, VirtualFileSystem, type ThreadFolders } from "@thinktank/sandbox";
import { FileHashes, hashDescriptor } from "../folders/file-hashes.js";
import { folderBytes } from "../folders/folder-usage.js";
import { KeyedSerializer } from "../folders/keyed-serializer.js";
import { copyThreadFolders, removeThreadFolders } from "../folders/thread-files-folders.js";
import { threadFilesDir, threadFolders } from "../folders/thread-folders.js";
import { numberedName, safeFileName } from "./safe-file-name.js";
import { stageUpload } from "./stage-upload.js";
import type { ThreadFilesOptions } from "./thread-files-options.js";
import { UploadManifest, type UploadRecord } from "./upload-manifest.js";

/** The folders of a thread the API lists and serves. */
export const threadFileFolders = ["uploads", "outputs", "workspace"] as const;
export type ThreadFileFolder = (typeof threadFileFolders)[number];

/** One file part of an upload request, as a stream (never buffered whole). */
export interface IncomingFile {
  /** The name the client sent; made safe before it is used. */
  readonly filename: string;
  readonly stream: Readable;
}

/** One file of a listing. */
export interface ThreadFileEntry {
  /** Its path inside the folder ('/' between segments). */
  readonly name: string;
  readonly size: number;
  /** ISO time of its last change. */
  readonly mtime: string;
  /** Hex SHA-256; null when this listing's hashing budget ran out before it (a later listing has it). */
  readonly sha256: string | null;
  readonly mime_type: string;
}

/** A file opened to be served; close `fd` when done. */
export interface OpenedThreadFile {
  readonly fd: number;
  readonly stats: fs.Stats;
  /** Its own name (the last segment). */
  readonly name: string;
  readonly mimeType: string;
}

const mb = 1024 * 1024;
const uploadsRoot = "/mnt/user-data/uploads";
const noSkills = { snapshot: async () => ({ skills: [] }), resolvePath: async () => Promise.reject(new ThinktankError("INVALID_PATH", "no skills here")) };

/** The MIME type a file name implies (mime-types); application/octet-stream when unknown. */
export function mimeTypeFor(name: string): string {
  return mime.lookup(name) || "application/octet-stream";
}

/**
 * A thread's files over the API: uploads (streamed to a staging file, hashed and counted on the
 * way, bounded per file, per request and per thread, all or nothing, safely and uniquely named,
 * recorded in the manifest, with a Markdown version when a converter takes them), listing,
 * opening to serve, deleting, and a thread's files removed or copied with it. The commit step of
 * uploads is serialized per thread in this process (names and the thread's cap hold across
 * concurrent uploads); another process sharing the data folder is not serialized with it.
 */
export class ThreadFiles {
  readonly #serializer = new KeyedSerializer();
  readonly #hashes: FileHashes;
  readonly #clock: () => Date;

  constructor(private readonly options: ThreadFilesOptions) {
    this.#hashes = new FileHashes(options.hashCacheEntries ?? 20_000);
    this.#clock = options.clock ?? (() => new Date());
  }

  /** Host folders of a thread (threadFolders). */
  folders(threadId: string): ThreadFolders {
    return threadFolders(this.options.config, threadId);
  }

  /** Manifest entries with seq greater than `seq`, in order (what the model has not been told of yet). */
  uploadsSince(threadId: string, seq: number): Promise<UploadRecord[]> {
    return this.#manifest(threadId).since(seq);
  }

  /**
   * Stores the files of one request in the thread's uploads/. Throws (and keeps nothing of the
   * request) FILE_TOO_LARGE, TOO_MANY_FILES, THREAD_FILES_FULL, VALIDATION_FAILED for none, or the
   * error of a stream that failed (a client gone midway). Conversions run before the commit; one
   * that fails is recorded as conversion_error and the upload is kept.
   */
  async upload(threadId: string, files: AsyncIterable<IncomingFile>, signal?: AbortSignal): Promise<UploadRecord[]> {
    const { max_file_mb, max_files, max_thread_mb } = this.options.config.files;
    const maxThreadBytes = max_thread_mb * mb;
    const staging = path.join(threadFilesDir(this.options.config, threadId), ".staging", crypto.randomUUID());
    await fs.promises.mkdir(staging, { recursive: true, mode: 0o700 });
    try {
      const before = await this.#threadBytes(threadId);
      let bytes = 0;
      const full = () => new ThinktankError("THREAD_FILES_FULL", `the thread's files would pass ${max_thread_mb} MB (files.max_thread_mb); delete some first`);
      const staged: { name: string; file: string; size: number; sha256: string; mimeType: string; markdown?: string; markdownBytes?: number; conversionError?: string }[] = [];
      for await (const incoming of files) {
        if (staged.length >= max_files) {
          incoming.stream.resume();
          throw new ThinktankError("TOO_MANY_FILES", `at most ${max_files} files per upload (files.max_files)`);
        }
        const name = safeFileName(incoming.filename);
        // The safe name keeps its extension: the converter tells a document's kind by it.
        const file = path.join(staging, `${staged.length}-${name}`);
        const result = await stageUpload(incoming.stream, file, max_file_mb * mb, name, (chunk) => ((bytes += chunk) + before > maxThreadBytes ? full() : undefined));
        staged.push({ name, file, mimeType: mimeTypeFor(name), ...result });
      }
      if (staged.length === 0) throw new ThinktankError("VALIDATION_FAILED", "no file in the request: send multipart/form-data with one or more 'file' fields");
      const converter = this.options.converter;
      for (const item of converter ? staged : []) {
        if (!converter?.accepts(item.name, item.mimeType)) continue;
        signal?.throwIfAborted();
        const markdown = `${item.file}.md`;
        const converted = await converter.convert(item.file, markdown, signal).catch((error: unknown) => ({ ok: false as const, reason: error instanceof Error ? error.message : String(error) }));
        if (converted.ok) Object.assign(item, { markdown, markdownBytes: (await fs.promises.stat(markdown)).size });
        else {
          await fs.promises.rm(markdown, { force: true });
          item.conversionError = converted.reason;
        }
      }
      signal?.throwIfAborted();
      return await this.#serializer.run(threadId, async () => {
        // The thread was deleted meanwhile (removeThread took its folder, staging included): nothing to commit into.
        if (!fs.existsSync(staging)) throw new ThinktankError("THREAD_NOT_FOUND", `no thread ${threadId}`);
        // Measured again in the thread's turn: uploads that committed meanwhile count.
        const incoming = staged.reduce((sum, item) => sum + item.size + (item.markdownBytes ?? 0), 0);
        if ((await this.#threadBytes(threadId)) + incoming > maxThreadBytes) throw full();
        const uploads = this.folders(threadId).uploads;
        await fs.promises.mkdir(uploads, { recursive: true });
        const taken = new Set(await fs.promises.readdir(uploads));
        const manifest = this.#manifest(threadId);
        let seq = await manifest.lastSeq();
        const linked: string[] = [];
        const records: UploadRecord[] = [];
        const place = async (file: string, wanted: string): Promise<string> => {
          const name = numberedName(wanted, (candidate) => taken.has(candidate));
          taken.add(name);
          await fs.promises.chmod(file, 0o644);
          // link never replaces a file: a name taken meanwhile fails rather than overwrites.
          await fs.promises.link(file, path.join(uploads, name));
          linked.push(path.join(uploads, name));
          return name;
        };
        try {
          for (const item of staged) {
            const name = await place(item.file, item.name);
            const converted = item.markdown ? { path: `${uploadsRoot}/${await place(item.markdown, `${name}.md`)}`, size: item.markdownBytes ?? 0 } : undefined;
            seq += 1;
            records.push({
              seq,
              name,
              path: `${uploadsRoot}/${name}`,
              size: item.size,
              sha256: item.sha256,
              mime_type: item.mimeType,
              uploaded_at: this.#clock().toISOString(),
              ...(converted ? { converted } : {}),
              ...(item.conversionError !== undefined ? { conversion_error: item.conversionError } : {}),
            });
            const stats = await fs.promises.stat(path.join(uploads, name));
            this.#hashes.set(`${threadId}/uploads/${name}`, stats, item.sha256);
          }
          await manifest.append(records);
        } catch (error) {
          await Promise.all(linked.map((file) => fs.promises.rm(file, { force: true })));
          throw error;
        }
        return records;
      });
    } finally {
      await fs.promises.rm(staging, { recursive: true, force: true });
    }
  }

  /** The regular files of one folder, recursing (links skipped), sorted by path, at most maxListEntries. */
  async list(threadId: string, folder: ThreadFileFolder): Promise<{ readonly files: ThreadFileEntry[]; readonly truncated: boolean }> {
    // A folder not made yet lists empty (and a read does not create it).
    if (!fs.existsSync(this.folders(threadId)[folder])) return { files: [], truncated: false };
    const access = this.#access(threadId);
    const walked = await access.walk(`/mnt/user-data/${folder}`, this.options.maxListEntries ?? 1000);
    let budget = this.options.listHashBytes ?? 512 * mb;
    const files: ThreadFileEntry[] = [];
    for (const file of walked.files) {
      const key = `${threadId}/${folder}/${file.path}`;
      let sha256 = this.#hashes.get(key, file) ?? null;
      if (sha256 === null && file.size <= budget) {
        budget -= file.size;
        sha256 = await this.#hashFile(access, `/mnt/user-data/${folder}/${file.path}`, key).catch(() => null);
      }
      files.push({ name: file.path, size: file.size, mtime: new Date(file.mtimeMs).toISOString(), sha256, mime_type: mimeTypeFor(file.path) });
    }
    return { files, truncated: walked.truncated };
  }

  /** Opens one file to serve (`relative`: its path inside the folder). FILE_NOT_FOUND when missing; PATH_TRAVERSAL through a link out. */
  async open(threadId: string, folder: ThreadFileFolder, relative: string): Promise<OpenedThreadFile> {
    if (!fs.existsSync(this.folders(threadId)[folder])) throw new ThinktankError("FILE_NOT_FOUND", `no file ${relative}`);
    const opened = await this.#access(threadId).open(virtualPathOf(folder, relative)).catch(notFoundAsFileNotFound(relative));
    const name = opened.virtualPath.split("/").pop() ?? "file";
    return { fd: opened.fd, stats: opened.stats, name, mimeType: mimeTypeFor(name) };
  }

  /**
   * Deletes one file, in the thread's turn. An upload takes its manifest entry and its Markdown
   * side file with it; deleting only the side file drops `converted` from the upload's entry.
   */
  async remove(threadId: string, folder: ThreadFileFolder, relative: string): Promise<void> {
    const virtualPath = virtualPathOf(folder, relative);
    await this.#serializer.run(threadId, async () => {
      if (!fs.existsSync(this.folders(threadId)[folder])) throw new ThinktankError("FILE_NOT_FOUND", `no file ${relative}`);
      const access = this.#access(threadId);
      await access.remove(virtualPath).catch(notFoundAsFileNotFound(relative));
      if (folder !== "uploads" || relative.includes("/")) return;
      const manifest = this.#manifest(threadId);
      const record = (await manifest.all()).find((entry) => entry.name === relative);
      if (record?.converted) await access.remove(record.converted.path).catch(() => undefined);
      await manifest.remove(relative);
    });
  }

  /** Removes all of a thread's files (uploads, outputs, manifest, workspace), in its turn. */
  async removeThread(threadId: string): Promise<void> {
    await this.#serializer.run(threadId, () => removeThreadFolders(this.options.config, threadId));
    this.#hashes.forget(`${threadId}/`);
  }

  /** Copies a thread's files to a new thread (`to` has none yet). */
  async copyThread(from: string, to: string): Promise<void> {
    await this.#serializer.run(from, () => copyThreadFolders(this.options.config, from, to));
  }

  /** Removes staging folders left by a process that stopped mid-upload (older than `olderThanMs`, so a replica's upload in progress stays). */
  async sweepStaging(olderThanMs = 60 * 60 * 1000): Promise<number> {
    const root = path.join(this.options.config.data_dir, "user-data");
    let removed = 0;
    for (const thread of await fs.promises.readdir(root).catch(() => [] as string[])) {
      const staging = path.join(root, thread, ".staging");
      for (const entry of await fs.promises.readdir(staging).catch(() => [] as string[])) {
        const stats = await fs.promises.lstat(path.join(staging, entry)).catch(() => undefined);
        if (stats && Date.now() - stats.mtimeMs > olderThanMs) {
          await fs.promises.rm(path.join(staging, entry), { recursive: true, force: true });
          removed += 1;
        }
      }
    }
    return removed;
  }

  async #hashFile(access: FileAccess, virtualPath: string, key: string): Promise<string> {
    const opened = await access.open(virtualPath);
    try {
      const sha256 = await hashDescriptor(opened.fd);
      this.#hashes.set(key, opened.stats, sha256);
      return sha256;
    } finally {
      fs.closeSync(opened.fd);
    }
  }

  /** Bytes of the thread's uploads, outputs and workspace now. */
  async #threadBytes(threadId: string): Promise<number> {
    const folders = this.folders(threadId);
    const sizes = await Promise.all([folders.uploads, folders.outputs, folders.workspace].map(folderBytes));
    return sizes.reduce((sum, size) => sum + size, 0);
  }

  #manifest(threadId: string): UploadManifest {
    return new UploadManifest(path.join(threadFilesDir(this.options.config, threadId), "uploads.jsonl"));
  }

  #access(threadId: string): FileAccess {
    const ensure = this.options.ensureWorkspace;
    return new FileAccess(new VirtualFileSystem({ skills: noSkills, folders: this.folders(threadId), ...(ensure ? { ensureWorkspace: () => ensure(threadId) } : {}) }));
  }
}

/** The virtual path of `relative` inside a folder; cleanVirtualPath (in resolve) refuses what escapes. */
function virtualPathOf(folder: ThreadFileFolder, relative: string): string {
  if (relative === "" || relative.startsWith("/")) throw new ThinktankError("INVALID_PATH", `give a file path inside ${folder}`);
  return `/mnt/user-data/${folder}/${relative}`;
}

function notFoundAsFileNotFound(relative: string): (error: unknown) => never {
  return (error: unknown) => {
    if (error instanceof ThinktankError && error.code === "NOT_FOUND") throw new ThinktankError("FILE_NOT_FOUND", `no file ${relative}`);
    throw error;
  };
}

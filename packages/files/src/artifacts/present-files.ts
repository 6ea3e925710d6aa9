import fs from "node:fs";
import path from "node:path";
import { isThinktankError, type ErrorCode } from "@thinktank/core";
import type { VirtualFileSystem } from "@thinktank/sandbox";
import { mimeTypeFor } from "../uploads/thread-files.js";
import type { ThreadArtifact } from "./thread-artifact.js";
import { threadFileUrl } from "./thread-file-url.js";

export interface PresentFilesOptions {
  /** Most paths one call may present. @default 20 */
  readonly maxFiles?: number;
}

/** What presentFiles answers: the artifacts, or why none was recorded (every refused path named). */
export type PresentFilesResult = { readonly ok: true; readonly artifacts: readonly ThreadArtifact[] } | { readonly ok: false; readonly code: ErrorCode; readonly message: string };

/** The folders whose files the model may present: what it made. Uploads are the user's own files; /mnt/skills never. */
export const presentableFolders = ["/mnt/user-data/outputs", "/mnt/user-data/workspace"] as const;

/**
 * The files a thread's model names to show the user, as artifacts (virtual path, name, size, MIME
 * type from the name, download URL). Each path goes through the thread's VirtualFileSystem (no
 * traversal, no symbolic link out of its folder) and must be a regular file under
 * /mnt/user-data/outputs or /mnt/user-data/workspace. All or nothing: one refused path refuses the
 * call, naming each refused path and why, so the model can correct it. Repeated paths count once.
 */
export async function presentFiles(files: VirtualFileSystem, threadId: string, paths: unknown, options: PresentFilesOptions = {}): Promise<PresentFilesResult> {
  const maxFiles = options.maxFiles ?? 20;
  if (!Array.isArray(paths) || paths.length === 0) return { ok: false, code: "VALIDATION_FAILED", message: "paths: give at least one file path, e.g. /mnt/user-data/outputs/report.md" };
  if (paths.length > maxFiles) return { ok: false, code: "VALIDATION_FAILED", message: `paths: at most ${maxFiles} files per call (got ${paths.length})` };
  const artifacts = new Map<string, ThreadArtifact>();
  const refusals: { code: ErrorCode; message: string }[] = [];
  for (const candidate of paths) {
    const outcome = await artifactFor(files, threadId, candidate);
    if ("code" in outcome) refusals.push(outcome);
    else if (!artifacts.has(outcome.path)) artifacts.set(outcome.path, outcome);
  }
  const [first] = refusals;
  if (first) return { ok: false, code: first.code, message: refusals.map((refusal) => refusal.message).join("; ") };
  return { ok: true, artifacts: [...artifacts.values()] };
}

async function artifactFor(files: VirtualFileSystem, threadId: string, candidate: unknown): Promise<ThreadArtifact | { code: ErrorCode; message: string }> {
  let target;
  try {
    target = await files.resolve(candidate);
  } catch (error) {
    if (isThinktankError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  const shown = target.virtualPath;
  if (target.kind === "listing" || target.userFolder === undefined || !(presentableFolders as readonly string[]).includes(target.userFolder)) {
    const why = target.kind !== "listing" && target.userFolder === "/mnt/user-data/uploads" ? "is the user's own upload (copy it to /mnt/user-data/outputs to present a changed version)" : "is not under /mnt/user-data/outputs or /mnt/user-data/workspace";
    return { code: "INVALID_PATH", message: `${shown} ${why}` };
  }
  if (target.kind === "missing") return { code: "NOT_FOUND", message: `${shown} does not exist` };
  if (target.kind === "folder") return { code: "VALIDATION_FAILED", message: `${shown} is a folder; present the files in it` };
  // hostPath is the resolved real path; lstat, so a link swapped in since (a sandboxed program may) is refused, not followed.
  const stats = await fs.promises.lstat(target.hostPath).catch(() => undefined);
  if (!stats) return { code: "NOT_FOUND", message: `${shown} does not exist` };
  if (!stats.isFile()) return { code: "VALIDATION_FAILED", message: `${shown} is not a regular file` };
  const url = threadFileUrl(threadId, shown);
  if (url === undefined) return { code: "INVALID_PATH", message: `${shown} has no download route` };
  const name = path.posix.basename(shown);
  return { path: shown, name, size: stats.size, mime_type: mimeTypeFor(name), url };
}

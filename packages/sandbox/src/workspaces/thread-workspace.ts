import fs from "node:fs";
import path from "node:path";
import { ThinktankError } from "@thinktank/core";

/** Thread ids that are safe as one folder name: LangGraph's UUIDs and similar. */
const safeThreadId = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** The folder of a thread's workspace under `workspacesDir`; throws VALIDATION_FAILED for an id that is not a safe folder name. */
export function threadWorkspacePath(workspacesDir: string, threadId: string): string {
  if (typeof threadId !== "string" || !safeThreadId.test(threadId) || threadId.includes("..")) {
    throw new ThinktankError("VALIDATION_FAILED", `thread id: expected 1-128 characters of letters, digits, '_', '.', '-' (starting with a letter or digit, no '..'), got ${JSON.stringify(threadId)}`);
  }
  return path.join(workspacesDir, threadId);
}

/**
 * Creates (if needed) and returns a thread's workspace. The workspaces folder is searchable but not
 * listable (0711); each workspace is private to its owner (0700): the sandbox user when the host runs
 * as root, else the host user. A sandbox only ever sees its own thread's workspace mounted.
 */
export function createThreadWorkspace(workspacesDir: string, threadId: string, owner?: { uid: number; gid: number }): string {
  const workspace = threadWorkspacePath(workspacesDir, threadId);
  fs.mkdirSync(workspacesDir, { recursive: true, mode: 0o711 });
  fs.mkdirSync(workspace, { recursive: true, mode: 0o700 });
  if (owner) {
    const stats = fs.statSync(workspace);
    if (stats.uid !== owner.uid) fs.chownSync(workspace, owner.uid, owner.gid);
  }
  return workspace;
}

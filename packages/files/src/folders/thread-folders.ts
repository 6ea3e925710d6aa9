import path from "node:path";
import type { Config } from "@thinktank/core";
import { threadWorkspacePath, type ThreadFolders } from "@thinktank/sandbox";

/**
 * Where a thread's virtual folders live on the host. The workspace is the sandbox's own
 * workspace of the thread (so read_file, bash and execute_code all see the same files); uploads
 * and outputs sit under `<data_dir>/user-data/<thread>/` (threadFilesDir), beside what the model
 * never sees (the upload manifest, the staging folder). Pure: nothing is created here.
 * Throws VALIDATION_FAILED for a thread id that is not a safe folder name.
 */
export function threadFolders(config: Pick<Config, "data_dir" | "sandbox">, threadId: string): ThreadFolders {
  const workspace = threadWorkspacePath(config.sandbox.workspaces_dir, threadId);
  const base = threadFilesDir(config, threadId);
  return { workspace, uploads: path.join(base, "uploads"), outputs: path.join(base, "outputs") };
}

/**
 * `<data_dir>/user-data/<thread>`: the thread's uploads and outputs folders, its upload manifest
 * (`uploads.jsonl`) and the staging folder of uploads in progress (`.staging`). Only `uploads/` and
 * `outputs/` are shown to the model.
 */
export function threadFilesDir(config: Pick<Config, "data_dir" | "sandbox">, threadId: string): string {
  return path.join(config.data_dir, "user-data", path.basename(threadWorkspacePath(config.sandbox.workspaces_dir, threadId)));
}

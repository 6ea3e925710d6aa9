import path from "node:path";
import type { Config } from "@thinktank/core";
import { threadWorkspacePath } from "@thinktank/sandbox";
import type { ThreadFolders } from "./request-context.js";

/**
 * Where a thread's virtual folders live on the host. The workspace is the sandbox's own
 * workspace of the thread (so read_file, bash and execute_code all see the same files); uploads
 * and outputs sit under `<data_dir>/user-data/<thread>/`. Pure: nothing is created here.
 * Throws VALIDATION_FAILED for a thread id that is not a safe folder name.
 */
export function threadFolders(config: Pick<Config, "data_dir" | "sandbox">, threadId: string): ThreadFolders {
  const workspace = threadWorkspacePath(config.sandbox.workspaces_dir, threadId);
  const base = path.join(config.data_dir, "user-data", path.basename(workspace));
  return { workspace, uploads: path.join(base, "uploads"), outputs: path.join(base, "outputs") };
}

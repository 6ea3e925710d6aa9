import crypto from "node:crypto";
import path from "node:path";

/**
 * Where one user's own code API lives on the host (the typed wrappers of their own MCP servers):
 * `<code_api_dir>-users/<hash of their id>`, beside the shared code API and never inside it (every
 * program mounts that one). Code mode generates it for their programs; deleting the user removes it.
 */
export function userCodeApiDir(codeApiDir: string, user: string): string {
  return path.join(`${codeApiDir.replace(/\/+$/, "")}-users`, crypto.createHash("sha256").update(user).digest("hex").slice(0, 32));
}

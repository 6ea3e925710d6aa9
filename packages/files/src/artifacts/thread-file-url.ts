const userDataRoot = "/mnt/user-data/";
const folders = new Set(["uploads", "outputs", "workspace"]);

/**
 * The download route of a file under /mnt/user-data, relative to the agent server's origin:
 * `/threads/<thread_id>/files/<folder>/<relative path>`, every segment percent-encoded. Undefined
 * for a path outside the thread's three folders, or a folder itself. The path is expected clean
 * (cleanVirtualPath: absolute, no `.`, `..` or empty segments).
 */
export function threadFileUrl(threadId: string, virtualPath: string): string | undefined {
  if (!virtualPath.startsWith(userDataRoot)) return undefined;
  const [folder, ...rest] = virtualPath.slice(userDataRoot.length).split("/");
  if (folder === undefined || !folders.has(folder) || rest.length === 0 || rest.some((segment) => segment === "")) return undefined;
  return ["", "threads", threadId, "files", folder, ...rest].map((segment, index) => (index === 0 ? segment : encodeURIComponent(segment))).join("/");
}

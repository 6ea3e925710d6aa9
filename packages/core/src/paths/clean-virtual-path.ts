import { ThinktankError } from "../errors/thinktank-error.js";

/**
 * The one check of a virtual path the model gives (`/mnt/skills/...`, `/mnt/user-data/...`): used by
 * the skills' path resolver and the sandbox's virtual file system. Refused: anything but a
 * non-empty string, NUL bytes, backslashes and relative paths (INVALID_PATH), '..' segments and
 * percent-encoded '.', '/', '\' or NUL, also double-encoded (PATH_TRAVERSAL). Returns the path
 * without '.', empty segments or a trailing slash. Where a path may lead after that (symbolic
 * links) is for the caller to check against the real folder, with isInsideFolder.
 * @param baseFolder the folder a relative path was probably meant in, named in the hint ("e.g. /mnt/user-data/workspace/notes.md")
 */
export function cleanVirtualPath(virtualPath: unknown, baseFolder: string): string {
  if (typeof virtualPath !== "string" || virtualPath === "") throw new ThinktankError("INVALID_PATH", `path: expected an absolute path such as ${baseFolder}/notes.md`);
  const shown = JSON.stringify(virtualPath);
  if (virtualPath.includes("\u0000")) throw new ThinktankError("INVALID_PATH", `path ${JSON.stringify(virtualPath.replaceAll("\u0000", "\\0"))} contains a NUL byte`);
  if (virtualPath.includes("\\")) throw new ThinktankError("INVALID_PATH", `path ${shown} contains a backslash; use '/'`);
  refuseEncodedTraversal(virtualPath);
  if (!virtualPath.startsWith("/")) throw new ThinktankError("INVALID_PATH", `path ${shown} must be absolute, e.g. ${baseFolder}/${virtualPath}`);
  const segments = virtualPath.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (segments.includes("..")) throw new ThinktankError("PATH_TRAVERSAL", `path ${shown} contains '..'; give the full path instead`);
  return `/${segments.join("/")}`;
}

/** Percent-encoded '.', '/', '\' or NUL, also double-encoded (%252e), are refused outright. */
function refuseEncodedTraversal(virtualPath: string): void {
  let text = virtualPath;
  for (let round = 0; round < 4; round++) {
    if (/%(2e|2f|5c|00)/i.test(text)) {
      throw new ThinktankError("PATH_TRAVERSAL", `path ${JSON.stringify(virtualPath)} contains a percent-encoded '.', '/', '\\' or NUL`);
    }
    const decoded = text.replace(/%25/gi, "%");
    if (decoded === text) return;
    text = decoded;
  }
}

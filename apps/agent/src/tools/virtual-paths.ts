import fs from "node:fs";
import path from "node:path";

/** A virtual folder the model sees (e.g. /mnt/skills) and the host folder behind it. */
export interface Mount {
  readonly virtualPath: string;
  readonly hostPath: string;
  readonly writable: boolean;
}

export type Resolved = { ok: true; hostPath: string; mount: Mount } | { ok: false; message: string };

/**
 * Maps a virtual path to a host path inside one mount. Rejects relative paths, paths outside every
 * mount, `..` escapes and symlinks that lead out of the mount (checked on the real path).
 */
export function resolveVirtualPath(virtualPath: string, mounts: readonly Mount[]): Resolved {
  if (!virtualPath.startsWith("/")) return { ok: false, message: `path must be absolute (start with /): ${virtualPath}` };
  const normalized = path.posix.normalize(virtualPath).replace(/\/+$/, "") || "/";
  const mount = mounts.find((m) => normalized === m.virtualPath || normalized.startsWith(`${m.virtualPath}/`));
  if (!mount) return { ok: false, message: `path is outside the allowed folders (${mounts.map((m) => m.virtualPath).join(", ")}): ${virtualPath}` };
  const relative = normalized.slice(mount.virtualPath.length).replace(/^\//, "");
  const hostPath = path.join(mount.hostPath, relative);
  let realRoot: string;
  let realTarget: string;
  try {
    realRoot = fs.realpathSync(mount.hostPath);
    realTarget = fs.realpathSync(hostPath);
  } catch {
    return { ok: false, message: `no such file or folder: ${virtualPath}` };
  }
  if (realTarget !== realRoot && !realTarget.startsWith(`${realRoot}${path.sep}`)) {
    return { ok: false, message: `path leads outside ${mount.virtualPath}: ${virtualPath}` };
  }
  return { ok: true, hostPath: realTarget, mount };
}

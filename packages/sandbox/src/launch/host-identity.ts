import fs from "node:fs";

/** Device and inode of each path: changes when a folder is deleted and created again, or swapped by a rename. */
export function hostIdentity(paths: readonly string[]): string {
  return paths
    .map((target) => {
      try {
        const stats = fs.statSync(target);
        return `${stats.dev}:${stats.ino}`;
      } catch {
        return "missing";
      }
    })
    .join(",");
}

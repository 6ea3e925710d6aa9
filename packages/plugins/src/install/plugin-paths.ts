import fs from "node:fs";
import path from "node:path";

/** `<pluginsDir>/installed`: one folder per installed plugin, named after it. */
export function installedPluginsDir(pluginsDir: string): string {
  return path.join(pluginsDir, "installed");
}

/**
 * `<pluginsDir>/.staging`: where installs are assembled and removals are moved before deletion.
 * Beside installed/ so a rename between them never crosses file systems. Created on demand.
 */
export function stagingDir(pluginsDir: string): string {
  const dir = path.join(pluginsDir, ".staging");
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** `<pluginsDir>/previous`: the version each plugin's last update replaced, kept for a rollback (plugin-rollback.ts). */
export function previousPluginsDir(pluginsDir: string): string {
  return path.join(pluginsDir, "previous");
}

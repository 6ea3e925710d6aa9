import fs from "node:fs";
import path from "node:path";

/** Names a zip tool adds that are never part of a plugin. */
export function isArchiveJunk(segments: readonly string[]): boolean {
  return segments[0] === "__MACOSX" || segments.at(-1) === ".DS_Store";
}

const markers = [".claude-plugin", "skills", "commands", "agents", "hooks", ".mcp.json"];

/** Whether a folder looks like a plugin root: a manifest, or any default component location. */
export function hasPluginMarkers(folder: string): boolean {
  return markers.some((marker) => fs.existsSync(path.join(folder, marker)));
}

/**
 * Where the plugin sits in an extracted archive or copied folder: the folder itself when it has
 * a manifest or components at its top, else its single subfolder (archives made by zipping the
 * plugin's folder), else the folder itself. `fallbackName` is the name to use without a manifest:
 * the single subfolder's name, else the one given (the archive's or folder's name).
 */
export function locatePluginRoot(content: string, fallbackName: string): { root: string; fallbackName: string } {
  if (hasPluginMarkers(content)) return { root: content, fallbackName };
  const entries = fs.readdirSync(content, { withFileTypes: true }).filter((entry) => !isArchiveJunk([entry.name]));
  const only = entries.length === 1 ? entries[0] : undefined;
  if (only?.isDirectory()) return { root: path.join(content, only.name), fallbackName: only.name };
  return { root: content, fallbackName };
}

import fs from "node:fs";
import path from "node:path";
import type { ComponentPaths, PluginProblem } from "../plugin-types.js";
import { manifestFile } from "../manifest/read-plugin-manifest.js";

/** A component path that exists inside the plugin. */
export interface ComponentLocation {
  /** Relative to the plugin root, `/`-separated, without a leading `./` ("." for the root itself). */
  readonly relative: string;
  readonly absolute: string;
  readonly kind: "file" | "directory";
}

/**
 * Where a component type lives. A manifest field (a path or a list of paths, relative to the plugin
 * root, `./` optional) replaces the default location, as in Claude Code; without it the default is
 * used when it exists. A path that is absolute, leaves the plugin (`..`), or does not exist is an
 * error problem and is skipped.
 */
export function componentLocations(
  root: string,
  field: string,
  value: ComponentPaths | undefined,
  defaultPath: string,
  problems: PluginProblem[],
): ComponentLocation[] {
  if (value === undefined) {
    const location = locate(root, defaultPath);
    return location ? [location] : [];
  }
  const list = typeof value === "string" ? [value] : value;
  const locations: ComponentLocation[] = [];
  for (const written of list) {
    const checked = checkRelative(root, written);
    if (!checked.ok) {
      problems.push({ severity: "error", file: manifestFile, message: `'${field}' path ${JSON.stringify(written)} ${checked.reason}` });
      continue;
    }
    const location = locate(root, checked.relative);
    if (!location) {
      problems.push({ severity: "error", file: manifestFile, message: `'${field}' path ${JSON.stringify(written)} does not exist in the plugin` });
      continue;
    }
    if (!locations.some((l) => l.relative === location.relative)) locations.push(location);
  }
  return locations;
}

/** Normalises a path written in a plugin file and checks it stays inside the plugin root. */
export function checkRelative(root: string, written: string): { ok: true; relative: string } | { ok: false; reason: string } {
  if (written.includes("\u0000")) return { ok: false, reason: "contains a NUL byte" };
  if (path.isAbsolute(written) || /^[A-Za-z]:[\\/]/.test(written)) return { ok: false, reason: "is absolute; component paths are relative to the plugin root" };
  const absolute = path.resolve(root, written);
  const relative = path.relative(root, absolute);
  if (relative.startsWith("..") || path.isAbsolute(relative)) return { ok: false, reason: "leads outside the plugin ('..')" };
  return { ok: true, relative: relative === "" ? "." : relative.split(path.sep).join("/") };
}

function locate(root: string, relative: string): ComponentLocation | undefined {
  const absolute = path.resolve(root, relative);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(absolute);
  } catch {
    return undefined;
  }
  const normalised = path.relative(root, absolute).split(path.sep).join("/") || ".";
  if (stat.isDirectory()) return { relative: normalised, absolute, kind: "directory" };
  if (stat.isFile()) return { relative: normalised, absolute, kind: "file" };
  return undefined;
}

/** The `.md` files a location stands for: the file itself, or the `*.md` files directly inside the folder, sorted. */
export function markdownFiles(location: ComponentLocation): ComponentLocation[] {
  if (location.kind === "file") return location.relative.endsWith(".md") ? [location] : [];
  return fs
    .readdirSync(location.absolute, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".md"))
    .map((entry) => entry.name)
    .sort()
    .map((name) => ({
      relative: location.relative === "." ? name : `${location.relative}/${name}`,
      absolute: path.join(location.absolute, name),
      kind: "file" as const,
    }));
}

/**
 * The JSON files of a component that lives in files (hooks, MCP servers): the default file when it
 * exists, plus the files the manifest field names when it is a path or a list of paths (a folder
 * is an error; a file named twice is read once). An inline object in the field is the caller's.
 */
export function jsonComponentFiles(root: string, field: string, value: unknown, defaultFile: string, problems: PluginProblem[]): ComponentLocation[] {
  const files = componentLocations(root, field, undefined, defaultFile, problems).filter((location) => location.kind === "file");
  if (typeof value !== "string" && !Array.isArray(value)) return files;
  for (const location of componentLocations(root, field, value as ComponentPaths, "", problems)) {
    if (location.kind !== "file") {
      problems.push({ severity: "error", file: manifestFile, message: `'${field}' path ./${location.relative} is a folder; it must name a JSON file` });
      continue;
    }
    if (!files.some((file) => file.relative === location.relative)) files.push(location);
  }
  return files;
}

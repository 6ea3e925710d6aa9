// Before `thinktank start` runs dist/: builds it (tsc -b) when it is missing or older than the
// sources, so a pull or an edit never starts yesterday's code. Plain JavaScript, and only a walk
// over file times when nothing changed (a few ms), because it runs before anything is compiled.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repositoryRoot = fileURLToPath(new URL("../../../", import.meta.url));

/** Builds (tsc -b of apps/cli and what it references) when needed, saying why in one line. */
export function ensureBuild(root = repositoryRoot) {
  const reason = staleReason(root);
  if (!reason) return;
  let tsc;
  try {
    tsc = createRequire(path.join(root, "package.json")).resolve("typescript/bin/tsc");
  } catch {
    process.stdout.write(`[start] ${reason}, but TypeScript is not installed (npm install): starting the existing build\n`);
    return;
  }
  process.stdout.write(`[start] ${reason}: building first (tsc -b apps/cli)\n`);
  const result = spawnSync(process.execPath, [tsc, "-b", "apps/cli"], { cwd: root, stdio: "inherit" });
  // tsc -b still writes the JavaScript of a project with type errors; starting it is more useful
  // than refusing, and the errors are on the screen.
  if (result.status !== 0) process.stdout.write(`[start] the build reported errors (above); starting what it wrote\n`);
  // The config schema's validator as standalone code (packages/core/src/config/config-validator.ts).
  spawnSync(process.execPath, [path.join(root, "packages/core/scripts/build-config-validator.mjs")], { cwd: root, stdio: "inherit" });
}

/** Why dist/ needs a build, or undefined when the build of every workspace the CLI runs is newer than its sources. */
export function staleReason(root) {
  for (const dir of runtimeWorkspaces(root)) {
    const name = path.relative(root, dir);
    let built;
    try {
      built = fs.statSync(buildInfoFile(dir)).mtimeMs;
    } catch {
      return `${name} has no build yet`;
    }
    const newer = newerThan(path.join(dir, "src"), built) ?? newerThan(path.join(dir, "tsconfig.json"), built);
    if (newer) return `${path.relative(root, newer)} is newer than the build`;
  }
  return undefined;
}

/** Where tsc -b writes a workspace's build info: its tsconfig's outDir (dist/, or dist/types/ for the console, whose tsc emits only types). */
function buildInfoFile(dir) {
  let outDir = "dist";
  try {
    outDir = JSON.parse(fs.readFileSync(path.join(dir, "tsconfig.json"), "utf8")).compilerOptions?.outDir ?? outDir;
  } catch {
    // Not plain JSON (comments): the default.
  }
  return path.join(dir, outDir, "tsconfig.tsbuildinfo");
}

/** The folders of @thinktank/cli and the workspaces it depends on (not devDependencies: test helpers do not run). */
function runtimeWorkspaces(root) {
  const byName = new Map();
  for (const group of ["packages", "apps"]) {
    for (const entry of fs.readdirSync(path.join(root, group))) {
      const dir = path.join(root, group, entry);
      const manifest = fs.existsSync(path.join(dir, "package.json")) ? JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) : undefined;
      if (manifest?.name) byName.set(manifest.name, { dir, dependencies: Object.keys(manifest.dependencies ?? {}) });
    }
  }
  const found = new Set();
  const visit = (name) => {
    const workspace = byName.get(name);
    if (!workspace || found.has(workspace.dir)) return;
    found.add(workspace.dir);
    workspace.dependencies.forEach(visit);
  };
  visit("@thinktank/cli");
  return found;
}

/**
 * The first TypeScript file (tsconfig.json, or under a folder) changed after `time`. Only what tsc
 * compiles counts, or a changed .py file would mean a build at every start that tsc finds up to
 * date; tests do not count either. A new or deleted module shows through the file that imports it.
 */
function newerThan(target, time) {
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (stat?.isDirectory()) {
    for (const name of fs.readdirSync(target)) {
      const found = newerThan(path.join(target, name), time);
      if (found) return found;
    }
    return undefined;
  }
  const compiled = (target.endsWith(".ts") && !target.endsWith(".test.ts")) || path.basename(target) === "tsconfig.json";
  return stat && compiled && stat.mtimeMs > time ? target : undefined;
}

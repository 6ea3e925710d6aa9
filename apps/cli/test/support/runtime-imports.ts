// What the Docker image's `npm prune --omit=dev` would break: a package the services' code imports
// at run time that package-lock.json marks dev (only devDependencies reach it), read without an engine.
import { builtinModules } from "node:module";
import fs from "node:fs";
import path from "node:path";

interface LockEntry {
  readonly dev?: boolean;
  readonly link?: boolean;
  readonly resolved?: string;
}

/** Imports allowed to name a dev package, and why: they never run in the image. */
const devOnlyImports: Readonly<Record<string, readonly string[]>> = {
  // Only under the "development" export condition (the tests, `npm run dev`); the image runs dist/.
  "apps/cli/bin/thinktank.js": ["tsx"],
};

/** The code API's module paths, which programs in the sandbox import (the prompts show them in examples). */
const codeApiModule = /^servers\//;

/** Folders of test code inside src/ (never imported by what runs). */
const testFolders = new Set(["test-support", "testing", "fixtures", "node_modules", "dist"]);

/** Every workspace (packages/*, apps/*): its package name and folder. */
function workspaceFolders(root: string): Map<string, string> {
  const folderOf = new Map<string, string>();
  for (const group of ["packages", "apps"]) {
    for (const name of fs.readdirSync(path.join(root, group))) {
      const manifest = path.join(root, group, name, "package.json");
      if (fs.existsSync(manifest)) folderOf.set((JSON.parse(fs.readFileSync(manifest, "utf8")) as { name: string }).name, `${group}/${name}`);
    }
  }
  return folderOf;
}

/** The workspaces the services run (the apps, and what their dependencies reach), by folder. */
function runtimeWorkspaces(root: string, folderOf: Map<string, string>): Map<string, string> {
  const reached = new Map<string, string>();
  const pending = ["apps/cli", "apps/agent", "apps/gateway"];
  while (pending.length > 0) {
    const folder = pending.pop() as string;
    const manifest = JSON.parse(fs.readFileSync(path.join(root, folder, "package.json"), "utf8")) as { name: string; dependencies?: Record<string, string> };
    if (reached.has(manifest.name)) continue;
    reached.set(manifest.name, folder);
    for (const dependency of Object.keys(manifest.dependencies ?? {})) {
      const workspace = folderOf.get(dependency);
      if (workspace) pending.push(workspace);
    }
  }
  return reached;
}

function sourceFiles(folder: string): string[] {
  if (!fs.existsSync(folder)) return [];
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return testFolders.has(entry.name) ? [] : sourceFiles(full);
    return /\.(ts|js|mjs)$/.test(entry.name) && !/\.(test|d)\.ts$/.test(entry.name) ? [full] : [];
  });
}

/** Each run-time import of a package the pruned image would not have, as `file: specifier (why)`. */
export function devImportsAtRunTime(root: string): string[] {
  const lock = (JSON.parse(fs.readFileSync(path.join(root, "package-lock.json"), "utf8")) as { packages: Record<string, LockEntry> }).packages;
  const folderOf = workspaceFolders(root);
  const workspaces = runtimeWorkspaces(root, folderOf);
  const builtins = new Set(builtinModules);
  const problems: string[] = [];
  // Static imports and exports (type-only ones left out: they are erased) and dynamic import("...").
  const pattern = /(?:^|[^\w.$])(?:import|export)\s+(type\s+)?(?:[^"';]*?\sfrom\s*)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
  for (const [name, folder] of workspaces) {
    for (const file of ["src", "bin"].flatMap((part) => sourceFiles(path.join(root, folder, part)))) {
      const relative = path.relative(root, file);
      for (const match of fs.readFileSync(file, "utf8").matchAll(pattern)) {
        const specifier = match[2] ?? match[3] ?? "";
        if (match[1] || !specifier || /^[./]|^node:|[$<\s]/.test(specifier) || codeApiModule.test(specifier) || builtins.has(specifier)) continue;
        const pkg = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : (specifier.split("/")[0] ?? specifier);
        if (pkg === name || devOnlyImports[relative]?.includes(pkg)) continue;
        if (folderOf.has(pkg)) {
          if (![...workspaces.keys()].includes(pkg)) problems.push(`${relative}: ${specifier} (a workspace no run-time dependency reaches)`);
          continue;
        }
        const entry = lock[`${folder}/node_modules/${pkg}`] ?? lock[`node_modules/${pkg}`];
        if (!entry) problems.push(`${relative}: ${specifier} (not in package-lock.json)`);
        else if (entry.dev) problems.push(`${relative}: ${specifier} (dev only: npm prune --omit=dev removes it)`);
      }
    }
  }
  return problems.sort();
}

import fs from "node:fs";
import path from "node:path";

/**
 * How the node processes tests start run the workspaces' code: `dist` (the build, which the root
 * vitest.config.ts found newer than every source it is built from) or `sources` (TypeScript through
 * tsx under the "development" export condition, about half a second more per start). The config says
 * which in THINKTANK_TEST_CHILDREN; without it (vitest run with another config) the sources run.
 */
export type ChildRuntime = "dist" | "sources";

export function childRuntime(): ChildRuntime {
  return process.env.THINKTANK_TEST_CHILDREN === "dist" ? "dist" : "sources";
}

/** NODE_OPTIONS for a child given an environment of its own: the "development" condition when the sources run. */
export function childNodeOptions(): string {
  return childRuntime() === "dist" ? "" : "--conditions=development";
}

/**
 * The node arguments that run a workspace's TypeScript file (absolute path, under a folder with the
 * workspace's tsconfig.json, which builds "." into dist/): its built .js from dist/, or the source
 * through tsx under the "development" condition.
 */
export function nodeArgsFor(sourceFile: string): string[] {
  if (childRuntime() === "sources") return ["--conditions=development", "--import", tsxEntry(), sourceFile];
  const workspace = workspaceOf(sourceFile);
  return [path.join(workspace, "dist", path.relative(workspace, sourceFile).replace(/\.ts$/, ".js"))];
}

function workspaceOf(file: string): string {
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "tsconfig.json"))) return dir;
  }
  throw new Error(`no workspace (tsconfig.json) holds ${file}`);
}

function tsxEntry(): string {
  return import.meta.resolve("tsx");
}

// `thinktank start` builds dist/ first when a source the CLI runs is newer than the build
// (bin/ensure-build.js). Checked on a small tree of workspaces with set file times.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { makeTempDir, repositoryRoot, writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// Plain JavaScript that runs before anything is compiled, so it is imported by URL (no types).
const { staleReason } = (await import(pathToFileURL(path.join(repositoryRoot(), "apps/cli/bin/ensure-build.js")).href)) as {
  staleReason(root: string): string | undefined;
};

const built = new Date("2030-01-01T00:00:00Z");
const later = new Date("2030-01-01T00:01:00Z");
let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir("tt-ensure-build-"));
  const manifest = (name: string, dependencies: Record<string, string> = {}, devDependencies: Record<string, string> = {}) => JSON.stringify({ name, dependencies, devDependencies });
  writeTree(dir, {
    "apps/cli/package.json": manifest("@thinktank/cli", { "@thinktank/core": "*" }, { "@thinktank/testing": "*" }),
    "apps/cli/tsconfig.json": "{}",
    "apps/cli/src/main.ts": "",
    "apps/cli/src/main.test.ts": "",
    "packages/core/package.json": manifest("@thinktank/core"),
    "packages/core/tsconfig.json": "{}",
    "packages/core/src/index.ts": "",
    "packages/core/src/runtime/bridge.py": "",
    "packages/testing/package.json": manifest("@thinktank/testing"),
    "packages/testing/tsconfig.json": "{}",
    "packages/testing/src/index.ts": "",
  });
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) fs.utimesSync(path.join(entry.parentPath, entry.name), built, built);
});
afterEach(() => cleanup());

function build(workspace: string, outDir = "dist"): void {
  writeTree(dir, { [`${workspace}/${outDir}/tsconfig.tsbuildinfo`]: "{}" });
  fs.utimesSync(path.join(dir, workspace, outDir, "tsconfig.tsbuildinfo"), later, later);
}

function touch(file: string): void {
  const when = new Date(later.getTime() + 60_000);
  fs.utimesSync(path.join(dir, file), when, when);
}

describe("staleReason", () => {
  it("names a workspace the CLI runs that has no build", () => {
    build("apps/cli");
    expect(staleReason(dir)).toBe("packages/core has no build yet");
  });

  it("is undefined when every build is newer than its sources; a test helper workspace does not count", () => {
    build("apps/cli");
    build("packages/core");
    expect(staleReason(dir)).toBeUndefined();
  });

  it("names the first TypeScript source or tsconfig.json newer than its workspace's build", () => {
    build("apps/cli");
    build("packages/core");
    touch("packages/core/src/index.ts");
    expect(staleReason(dir)).toBe("packages/core/src/index.ts is newer than the build");
    fs.utimesSync(path.join(dir, "packages/core/src/index.ts"), built, built);
    touch("apps/cli/tsconfig.json");
    expect(staleReason(dir)).toBe("apps/cli/tsconfig.json is newer than the build");
  });

  it("finds a workspace's build under its tsconfig's outDir (the console's tsc writes dist/types/)", () => {
    writeTree(dir, { "packages/core/tsconfig.json": JSON.stringify({ compilerOptions: { outDir: "dist/types" } }) });
    fs.utimesSync(path.join(dir, "packages/core/tsconfig.json"), built, built);
    build("apps/cli");
    build("packages/core");
    expect(staleReason(dir)).toBe("packages/core has no build yet");
    build("packages/core", "dist/types");
    expect(staleReason(dir)).toBeUndefined();
  });

  it("ignores what tsc does not compile or what does not run: tests, other files, devDependencies", () => {
    build("apps/cli");
    build("packages/core");
    touch("apps/cli/src/main.test.ts");
    touch("packages/core/src/runtime/bridge.py");
    touch("packages/testing/src/index.ts");
    expect(staleReason(dir)).toBeUndefined();
  });
});

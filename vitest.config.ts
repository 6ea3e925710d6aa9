import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";
import { staleReason } from "./apps/cli/bin/ensure-build.js";

const root = fileURLToPath(new URL(".", import.meta.url));

// The node processes tests start (the bin, both servers) run dist/ when it is newer than every source
// it is built from, as after `npm test`'s typecheck or `npm run build`: about half a second less per
// start than the sources through tsx (packages/testing/src/child-runtime.ts). Otherwise, or with
// THINKTANK_TEST_CHILDREN=sources, they run the sources under the "development" condition: a test
// never runs a stale build.
const stale = process.env.THINKTANK_TEST_CHILDREN === "sources" ? "THINKTANK_TEST_CHILDREN=sources" : staleReason(root);
const children = stale === undefined ? "dist" : "sources";
if (stale !== undefined && process.env.THINKTANK_TEST_CHILDREN !== "sources") process.stderr.write(`[vitest] the processes tests start run the sources through tsx (${stale}; \`npx tsc -b\` makes them run dist/)\n`);

// Unit tests of these packages (and of the agent app's src/) run one after another in one module graph per worker (isolate: false)
// instead of importing their workspaces again for every file: these 103 files took 77 s instead of
// 127 s on two cores (116 s of CPU instead of 221 s; import 16 s instead of 67 s summed); memory's and
// apps/agent/src's 21 files 25 s of CPU instead of 64 s (import 61 s instead of 212 s summed). Their tests start no
// service that outlives them and keep no state in modules. A file that mocks a module (vi.mock) runs
// isolated, since a shared graph has the real module already; so does every other workspace's (a
// whole-suite isolate: false once made a sandboxed stdio server test flaky, bb5d767).
const sharedGraphWorkspaces = ["core", "search", "skills", "plugins", "tools", "http", "identity", "models", "codegen", "subagents", "testing", "memory"];
const sharedGraphFiles = [...sharedGraphWorkspaces.map((name) => path.join("packages", name, "src")), path.join("apps", "agent", "src")]
  .flatMap((folder) => testFiles(folder))
  .filter((file) => !/\bvi\.(do)?[mM]ock\(/.test(fs.readFileSync(path.join(root, file), "utf8")));

/** The *.test.ts files under a folder, relative to the repository's root. */
function testFiles(folder: string): string[] {
  return fs.readdirSync(path.join(root, folder), { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".test.ts")).map((name) => path.join(folder, name));
}

// One vitest config for every workspace: unit tests beside the code, integration tests under apps/*/test.
export default defineConfig({
  test: {
    projects: [
      { extends: true, test: { name: "isolated", include: ["packages/*/src/**/*.test.ts", "apps/*/src/**/*.test.ts", "apps/*/test/**/*.test.ts"], exclude: [...configDefaults.exclude, ...sharedGraphFiles] } },
      { extends: true, test: { name: "shared-graph", include: sharedGraphFiles, isolate: false } },
    ],
    pool: "forks",
    // Most suites wait on processes they start (servers, sandboxes, the agent), not on the CPU: two
    // workers even on two cores (vitest's default there is one) halve the wall clock of the suite.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    // Tests run the TypeScript sources: vite resolves the workspaces' "development" export condition
    // by itself. The processes tests start (the bin, the servers) run what `children` says.
    env: children === "dist" ? { THINKTANK_TEST_CHILDREN: "dist" } : { THINKTANK_TEST_CHILDREN: "sources", NODE_OPTIONS: [process.env.NODE_OPTIONS, "--conditions=development"].filter(Boolean).join(" ") },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The second reporter prints one line naming tests skipped for a missing optional part (and fails under CI=true).
    reporters: ["default", "./packages/testing/src/missing-parts-reporter.ts"],
  },
});

import os from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { staleReason } from "./apps/cli/bin/ensure-build.js";

// The node processes tests start (the bin, both servers) run dist/ when it is newer than every source
// it is built from, as after `npm test`'s typecheck or `npm run build`: about half a second less per
// start than the sources through tsx (packages/testing/src/child-runtime.ts). Otherwise, or with
// THINKTANK_TEST_CHILDREN=sources, they run the sources under the "development" condition: a test
// never runs a stale build.
const stale = process.env.THINKTANK_TEST_CHILDREN === "sources" ? "THINKTANK_TEST_CHILDREN=sources" : staleReason(fileURLToPath(new URL(".", import.meta.url)));
const children = stale === undefined ? "dist" : "sources";
if (stale !== undefined && process.env.THINKTANK_TEST_CHILDREN !== "sources") process.stderr.write(`[vitest] the processes tests start run the sources through tsx (${stale}; \`npx tsc -b\` makes them run dist/)\n`);

// One vitest config for every workspace: unit tests beside the code, integration tests under apps/*/test.
export default defineConfig({
  test: {
    include: ["packages/*/src/**/*.test.ts", "apps/*/src/**/*.test.ts", "apps/*/test/**/*.test.ts"],
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

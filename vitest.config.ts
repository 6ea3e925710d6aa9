import os from "node:os";
import { defineConfig } from "vitest/config";

// One vitest config for every workspace: unit tests beside the code, integration tests under apps/*/test.
export default defineConfig({
  test: {
    include: ["packages/*/src/**/*.test.ts", "apps/*/src/**/*.test.ts", "apps/*/test/**/*.test.ts"],
    pool: "forks",
    // Most suites wait on processes they start (servers, sandboxes, the agent), not on the CPU: two
    // workers even on two cores (vitest's default there is one) halve the wall clock of the suite.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    // Tests run the TypeScript sources: vite resolves the workspaces' "development" export condition
    // by itself, and the processes tests start (the bin, the servers, tsx scripts) inherit it here.
    env: { NODE_OPTIONS: [process.env.NODE_OPTIONS, "--conditions=development"].filter(Boolean).join(" ") },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The second reporter prints one line naming tests skipped for a missing optional part (and fails under CI=true).
    reporters: ["default", "./packages/testing/src/missing-parts-reporter.ts"],
  },
});

// Test support (not exported): a config, an executor and thread workspaces in a temp folder.
import fs from "node:fs";
import path from "node:path";
import { loadConfig } from "@thinktank/core";
import type { Config, SandboxBackend } from "@thinktank/core";
import { makeTempDir } from "@thinktank/testing";
import { createSandboxExecutor } from "../executor/sandbox-executor.js";
import type { SandboxExecutorOptions } from "../executor/sandbox-executor-options.js";
import type { SandboxExecutor } from "../sandbox-types.js";

/** Host processes whose command line contains a marker: the shared helper, re-exported for the sandbox tests. */
export { processesWithMarker } from "@thinktank/testing";

export interface SandboxFixture {
  readonly root: string;
  /** The executor's runtime folder (worker folders are named on the workers' command lines). */
  readonly runtimeDir: string;
  readonly config: Config;
  readonly executor: SandboxExecutor;
  workspace(threadId: string): string;
  cleanup(): Promise<void>;
}

export function sandboxFixture(options: { backend?: SandboxBackend; warmPoolSize?: number; sandbox?: Partial<Config["sandbox"]>; executor?: Partial<SandboxExecutorOptions> } = {}): SandboxFixture {
  const temp = makeTempDir("thinktank-sandbox-test-");
  // Reachable by the unprivileged sandbox user when the tests run as root (mkdtemp makes 0700 folders).
  fs.chmodSync(temp.dir, 0o755);
  const loaded = loadConfig({ cwd: temp.dir, env: {} });
  const config: Config = {
    ...loaded,
    sandbox: { ...loaded.sandbox, backend: options.backend ?? "bubblewrap", warm_pool_size: options.warmPoolSize ?? 0, ...options.sandbox },
  };
  const runtimeDir = path.join(temp.dir, "runtime");
  const executor = createSandboxExecutor({ config, searchPath: process.env.PATH, runtimeDir, ...options.executor });
  return {
    root: temp.dir,
    runtimeDir,
    config,
    executor,
    workspace: (threadId) => executor.workspaceFor(threadId),
    cleanup: async () => {
      await executor.close();
      temp.cleanup();
    },
  };
}

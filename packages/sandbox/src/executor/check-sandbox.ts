import type { SandboxCheck } from "../sandbox-types.js";
import { createSandboxExecutor } from "./sandbox-executor.js";
import type { SandboxExecutorOptions } from "./sandbox-executor-options.js";

/**
 * The sandbox diagnostic on its own (for `thinktank doctor` or start-up logs): creates an executor
 * for the configured backend, starts a real sandbox per language, reports problems with their fixes,
 * and cleans up.
 */
export async function checkSandbox(options: SandboxExecutorOptions): Promise<SandboxCheck> {
  const executor = createSandboxExecutor({ ...options, config: { ...options.config, sandbox: { ...options.config.sandbox, warm_pool_size: 0 } } });
  try {
    return await executor.check();
  } finally {
    await executor.close();
  }
}

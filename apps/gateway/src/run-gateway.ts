import { checkDataFolders, ThinktankError, type Config } from "@thinktank/core";
import { createGatewayDeps } from "./gateway-deps.js";
import type { GatewayDeps } from "./gateway-deps.js";
import { startGateway } from "./start-gateway.js";

export interface RunGatewayOptions {
  /** Services to use instead of the real ones. @default createGatewayDeps(config) */
  readonly deps?: GatewayDeps;
  /** Aborting it stops the gateway (the CLI aborts on SIGINT, SIGTERM, or when its parent goes away). */
  readonly signal: AbortSignal;
  /** Called with the gateway's URL once it listens. */
  readonly onListening?: (url: string) => void;
}

/** Runs the gateway in the foreground until `signal` aborts, then closes it (in-flight requests finish first). */
export async function runGateway(config: Config, options: RunGatewayOptions): Promise<void> {
  // Before anything opens a file there: a data folder this uid cannot write stops the gateway with what to set.
  const writable = checkDataFolders(config);
  if (!writable.ok) throw new ThinktankError(writable.code, writable.message, { details: { folder: writable.folder } });
  const deps = options.deps ?? createGatewayDeps(config);
  const running = await startGateway(config, deps);
  options.onListening?.(running.url);
  if (!options.signal.aborted) await new Promise((resolve) => options.signal.addEventListener("abort", resolve, { once: true }));
  deps.logger.info("gateway stopping");
  await running.close();
  deps.logger.info("gateway stopped");
}

import type { Config } from "../config/config-types.js";
import { HostConfinement, type HostConfinementOptions } from "./host-confinement.js";

/** The parts of the configuration that name what host programs must not see. */
export type HiddenPathsConfig = Pick<Config, "data_dir" | "extensions_config" | "log" | "agent" | "sandbox" | "mcp" | "code_execution">;

/**
 * What no program the service starts on the host may see: the data folder (threads database,
 * OAuth tokens and their key, logs, workspaces), extensions_config.json, and each of those the
 * configuration moved out of the data folder. Paths inside the data folder are covered with it.
 */
export function hiddenFromHostPrograms(config: HiddenPathsConfig): string[] {
  const database = config.agent.threads.sqlite_path;
  return [
    config.data_dir,
    config.extensions_config,
    config.log.dir,
    database,
    `${database}-wal`,
    `${database}-shm`,
    `${database}-journal`,
    config.sandbox.workspaces_dir,
    config.mcp.catalog_dir,
    config.code_execution.code_api_dir,
  ];
}

/** The service's HostConfinement: hides hiddenFromHostPrograms(config), finds helpers on config.env.PATH. */
export function hostConfinementFor(config: HiddenPathsConfig & Pick<Config, "env">, options: Omit<HostConfinementOptions, "hide" | "searchPath"> = {}): HostConfinement {
  return new HostConfinement({ ...options, hide: hiddenFromHostPrograms(config), ...(config.env.PATH ? { searchPath: config.env.PATH } : {}) });
}

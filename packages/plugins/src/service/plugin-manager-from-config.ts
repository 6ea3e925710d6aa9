import { archiveLimitsFromConfig, hostConfinementFor, serviceSecretVariables, type Config, type ExtensionsStore, type HostConfinement } from "@thinktank/core";
import type { StdioSandboxAvailability } from "@thinktank/mcp";
import { fetchOptionsFromConfig } from "../fetch/fetch-options.js";
import { PluginManager } from "./plugin-manager.js";

/**
 * The plugin manager a process builds from its config: the plugins folder, the stdio-server
 * policy, the container path, archive limits and fetch settings all from config.yaml, over `store`
 * (the gateway's, the only writer). `watch: false` for a short-lived process such as the CLI;
 * `hostConfinement`: the service's HostConfinement, which confines git (@default hostConfinementFor(config));
 * `sandboxedStdio`: whether the agent runs sandboxed stdio servers on this host (PluginManagerOptions).
 */
export function pluginManagerFromConfig(
  config: Config,
  store: Pick<ExtensionsStore, "read" | "update">,
  options: { readonly watch?: boolean; readonly hostConfinement?: HostConfinement; readonly sandboxedStdio?: () => Promise<StdioSandboxAvailability> } = {},
): PluginManager {
  return new PluginManager({
    pluginsDir: config.plugins.path,
    store,
    env: config.env,
    hostPrograms: config.plugins.host_programs,
    serviceSecrets: serviceSecretVariables(config),
    containerPath: config.skills.container_path,
    limits: archiveLimitsFromConfig(config),
    fetch: fetchOptionsFromConfig(config, options.hostConfinement ?? hostConfinementFor(config)),
    baseDir: config.base_dir,
    ...(options.watch !== undefined ? { watch: options.watch } : {}),
    ...(options.sandboxedStdio ? { sandboxedStdio: options.sandboxedStdio } : {}),
  });
}

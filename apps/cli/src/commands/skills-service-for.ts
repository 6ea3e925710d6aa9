import { ExtensionsStore, archiveLimitsFromConfig, type Config } from "@thinktank/core";
import { createSkillsService, type SkillsService } from "@thinktank/skills";
import { pluginManagerFor } from "./plugins.js";

/**
 * Runs `work` with the skills service the gateway uses: skills/public, skills/custom and every
 * installed plugin's skills folders (a disabled plugin's skills listed as disabled), settings from
 * the store, no watchers. Closes everything afterwards.
 */
export async function withSkillsService<T>(config: Config, work: (service: SkillsService) => Promise<T>): Promise<T> {
  const store = new ExtensionsStore(config.extensions_config);
  const plugins = pluginManagerFor(config, store);
  const { service, snapshotter } = createSkillsService({
    skillsRoot: config.skills.path,
    store,
    containerPath: config.skills.container_path,
    limits: archiveLimitsFromConfig(config),
    extraSources: () => plugins.skillSources(),
    watch: false,
    searchConfig: config,
  });
  try {
    return await work(service);
  } finally {
    snapshotter.close();
    plugins.close();
  }
}

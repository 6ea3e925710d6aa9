import type { AgentDefinition, AgentProblem, ParsedAgent } from "./agent-types.js";

/**
 * The agents as one viewer sees them for one request: every agent, enabled or not (`enabled`
 * says), in a stable order (built-ins, plugins', custom, the user's own), and the problems found
 * reading them. Frozen; the snapshotter returns the same object while nothing changed.
 */
export interface AgentsSnapshot {
  readonly agents: readonly AgentDefinition[];
  readonly problems: readonly AgentProblem[];
}

/** The parts of extensions_config.json agents read: `agents.<identity>.enabled` and `users.<id>.agents.<identity>.enabled`. */
export interface AgentSettingsDocument {
  readonly agents?: Readonly<Record<string, unknown>>;
  readonly users?: Readonly<Record<string, unknown>>;
}

/** Reads extensions_config.json: the core ExtensionsStore fits (a cached read costs one stat). */
export interface AgentSettingsReader {
  read(): Promise<{ readonly document: AgentSettingsDocument; readonly revision: number }>;
}

/**
 * A plugin's agents as packages/plugins found them (a LoadedPlugin fits): its name, folder and
 * parsed agent files (`file` relative to `root`). `disabledReason` lists them switched off
 * (the plugin is disabled or has errors); the agent server passes only enabled plugins.
 */
export interface AgentPlugin {
  readonly name: string;
  readonly root: string;
  readonly agents: readonly ParsedAgent[];
  readonly disabledReason?: string;
}

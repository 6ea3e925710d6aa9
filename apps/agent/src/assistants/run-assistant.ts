import { selector, type AssistantChoice, type AssistantSettings } from "@thinktank/runs";

/**
 * The assistant one run uses, ready for request assembly: its settings, and its selections as
 * predicates compiled once (skills, sub-agents, MCP servers). `skillsKey` and `agentsKey` name
 * the selections, so restricted snapshots are made once per selection and reused across runs.
 */
export interface RunAssistant extends AssistantChoice {
  readonly settings: AssistantSettings;
  /** Which skills the run sees (identities; a plugin command counts as `plugin:<plugin>:<command>`); absent: all. */
  readonly skills?: (identity: string) => boolean;
  readonly skillsKey: string;
  /** Which sub-agents the run may delegate to; absent: all. */
  readonly agents?: (identity: string) => boolean;
  readonly agentsKey: string;
  /** Which MCP servers the run reaches; absent: all. */
  readonly servers?: (server: string) => boolean;
}

export function runAssistant(choice: AssistantChoice, settings: AssistantSettings): RunAssistant {
  return {
    assistant_id: choice.assistant_id,
    version: choice.version,
    settings,
    ...(settings.skills ? { skills: selector(settings.skills) } : {}),
    skillsKey: settings.skills ? JSON.stringify(settings.skills) : "",
    ...(settings.agents ? { agents: selector(settings.agents) } : {}),
    agentsKey: settings.agents ? JSON.stringify(settings.agents) : "",
    ...(settings.mcp_servers ? { servers: selector(settings.mcp_servers) } : {}),
  };
}

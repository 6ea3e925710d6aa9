import type { Config } from "@thinktank/core";
import { checkAssistantSettings, serverAccess, type AssistantService, type AssistantSettingsCheck, type RunRecord } from "@thinktank/runs";
import type { AgentRuntime } from "../runtime/agent-runtime.js";
import { runAssistant, type RunAssistant } from "./run-assistant.js";

/**
 * The catalog checks of an assistant's settings, as its creator sees the catalog: `model` among
 * `models.providers`, each skill entry naming one of their skills or plugin commands, each agent
 * entry one of their sub-agents, each server entry one of the MCP servers their runs reach.
 */
export function assistantSettingsCheck(config: Config, runtime: AgentRuntime): AssistantSettingsCheck {
  return async (settings, fieldOf, access) => {
    const owner = access.owner;
    const needsSnapshot = settings.skills !== undefined || settings.agents !== undefined;
    const snapshot = needsSnapshot ? await runtime.snapshot(owner) : undefined;
    if (settings.mcp_servers) await runtime.codeMode.refresh(owner);
    const commands = snapshot ? snapshot.plugins.plugins.flatMap((plugin) => plugin.commands.map((command) => `plugin:${plugin.name}:${command.name}`)) : [];
    checkAssistantSettings(
      settings,
      {
        models: Object.keys(config.models.providers),
        skills: snapshot ? [...snapshot.skills.skills.map((skill) => skill.identity), ...commands] : [],
        agents: snapshot ? snapshot.agents.agents.map((agent) => agent.identity) : [],
        mcpServers: settings.mcp_servers ? [...new Set([...runtime.codeMode.manager.status(owner).map((status) => status.name), ...runtime.codeMode.codeMode.catalog.serverNames()])] : [],
      },
      fieldOf,
    );
  };
}

/**
 * The assistant a run uses, at its turn: the version recorded when it was created (its
 * `metadata.assistant_version`), or the current one for a run recorded without it. Undefined for
 * lead_agent's built-in assistant (nothing to change).
 */
export async function runAssistantFor(assistants: AssistantService, run: RunRecord): Promise<RunAssistant | undefined> {
  if (assistants.isBuiltIn(run.assistant_id)) return undefined;
  const recorded = run.metadata.assistant_version;
  const version = typeof recorded === "number" && Number.isInteger(recorded) ? recorded : (await assistants.resolve(run.assistant_id, serverAccess)).version;
  const choice = { assistant_id: run.assistant_id, version };
  return runAssistant(choice, await assistants.settingsOf(choice));
}

import type { Config } from "@thinktank/core";
import type { AgentDefinition } from "./agent-types.js";

/** Claude Code's model aliases an agent file may name, mapped by config.subagents.models. */
const aliases = new Set(["sonnet", "opus", "haiku"]);

/**
 * The configured model (a `models.providers` name) an agent runs on, or undefined for the lead's
 * model: `sonnet` / `opus` / `haiku` as config.subagents.models maps them, a configured model's
 * name as it is; no model, `inherit`, an alias not mapped and a name not configured run on the
 * lead's model (a plugin written for Claude Code names models this server may not have).
 */
export function agentModelName(agent: Pick<AgentDefinition, "model">, config: Pick<Config, "subagents" | "models">): string | undefined {
  const wanted = agent.model?.trim();
  if (!wanted || wanted.toLowerCase() === "inherit") return undefined;
  const alias = wanted.toLowerCase();
  if (aliases.has(alias)) return config.subagents.models[alias as keyof Config["subagents"]["models"]];
  return Object.hasOwn(config.models.providers, wanted) ? wanted : undefined;
}

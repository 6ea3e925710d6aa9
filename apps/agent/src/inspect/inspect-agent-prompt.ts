import type { StructuredToolInterface } from "@langchain/core/tools";
import type { ToolDefinition } from "@thinktank/codemode";
import { isThinktankError, type Config } from "@thinktank/core";
import { countTokens } from "@thinktank/mcp";
import { resolveModel } from "@thinktank/models";
import { claudeCodeToolNames, permittedTools } from "@thinktank/skills";
import { agentModelName, findAgent, readAgentPrompt, type AgentDefinition, type AgentsSnapshot } from "@thinktank/subagents";
import type { RequestSurface } from "../request/request-context.js";
import { subagentSurface } from "../subagents/subagent-surface.js";
import { taskToolName } from "../subagents/task-tool.js";
import { toolDefinition } from "./tool-definition.js";

/** What a sub-agent the lead's `task` starts (depth 1) would be sent on its first model call. */
export interface AgentPromptInspection {
  readonly agent: Pick<AgentDefinition, "identity" | "name" | "source" | "plugin" | "description" | "tools" | "model" | "file">;
  /** The model it runs on: `name` (a `models.providers` key), and how the agent's `model` led there. */
  readonly model: { readonly name: string; readonly reason: string };
  /** Whether it gets a `task` tool of its own (depth 1 < subagents.max_depth). */
  readonly delegates: boolean;
  readonly systemPrompt: string;
  /** In the order the model gets them. */
  readonly tools: readonly ToolDefinition[];
  /** Entries of the agent's `tools` that match none of the tools a sub-agent may get here (they give it nothing). */
  readonly unmatchedTools: readonly string[];
  readonly tokens: { readonly systemPrompt: number; readonly tools: number; readonly total: number; readonly byTool: Readonly<Record<string, number>> };
}

/**
 * A named agent's sub-agent request, made the way the task tool makes it (subagentSurface over the
 * lead's surface of the same run; the agent's prompt read as a run reads it): AGENT_NOT_FOUND /
 * AGENT_AMBIGUOUS as a `task` call would meet them. `lead` is the lead's assembled surface.
 */
export async function inspectAgentPrompt(lead: RequestSurface, agents: AgentsSnapshot, nameOrIdentity: string, config: Pick<Config, "subagents" | "models" | "env">): Promise<AgentPromptInspection> {
  const agent = findAgent(agents, nameOrIdentity);
  const prompt = await readAgentPrompt(agent);
  const delegates = config.subagents.max_depth > 1;
  // A deeper task tool is the lead's task tool's twin (the same name, description and arguments).
  const task = delegates ? lead.tools.find((tool) => tool.name === taskToolName) : undefined;
  const surface = subagentSurface(lead, agent, { prompt, ...(task ? { task } : {}) });
  const tools = surface.tools.map(toolDefinition);
  const byTool = Object.fromEntries(tools.map((definition) => [definition.name, countTokens(JSON.stringify(definition))]));
  const toolTokens = Object.values(byTool).reduce((sum, count) => sum + count, 0);
  const promptTokens = countTokens(surface.systemPrompt);
  // What the agent could be given at most: the lead's tools a sub-agent may have (no tools list).
  const offered = subagentSurface(lead, { tools: undefined }, { prompt }).tools;
  return {
    agent: {
      identity: agent.identity,
      name: agent.name,
      source: agent.source,
      ...(agent.plugin !== undefined ? { plugin: agent.plugin } : {}),
      description: agent.description,
      ...(agent.tools !== undefined ? { tools: agent.tools } : {}),
      ...(agent.model !== undefined ? { model: agent.model } : {}),
      ...(agent.file !== undefined ? { file: agent.file } : {}),
    },
    model: agentModel(agent, config),
    delegates,
    systemPrompt: surface.systemPrompt,
    tools,
    unmatchedTools: (agent.tools ?? []).filter((entry) => !matchesAny(entry, offered)),
    tokens: { systemPrompt: promptTokens, tools: toolTokens, total: promptTokens + toolTokens, byTool },
  };
}

/** The agent's model as the task tool resolves it (agentModelName), with the reason in words. */
function agentModel(agent: AgentDefinition, config: Pick<Config, "subagents" | "models" | "env">): { name: string; reason: string } {
  const chosen = agentModelName(agent, config);
  const wanted = agent.model?.trim();
  if (chosen !== undefined) {
    const alias = wanted?.toLowerCase();
    return { name: chosen, reason: alias && alias !== chosen && Object.hasOwn(config.subagents.models, alias) ? `model: ${wanted}, mapped by subagents.models.${alias}` : `model: ${wanted}, a configured model` };
  }
  let lead: string;
  try {
    lead = resolveModel(config as Config).name;
  } catch (error) {
    if (!isThinktankError(error)) throw error;
    lead = "(none configured)";
  }
  const why = !wanted ? "no model" : wanted.toLowerCase() === "inherit" ? "model: inherit" : ["sonnet", "opus", "haiku"].includes(wanted.toLowerCase()) ? `model: ${wanted}, not mapped in subagents.models` : `model: ${wanted}, not a configured model`;
  return { name: lead, reason: `${why}: the lead's model` };
}

/**
 * Whether one `tools` entry stands for a tool in `offered`: a name it maps to that is not one of
 * the tools every list keeps (permittedTools' loaders), or a kept tool it names itself (`Read`,
 * `read_file`); `Skill` stands for the skills surface.
 */
function matchesAny(entry: string, offered: readonly StructuredToolInterface[]): boolean {
  const bare = entry.replace(/\(.*\)$/s, "").trim();
  const lower = bare.toLowerCase();
  if (lower === "skill") return offered.some((tool) => tool.name === "view_skill" || tool.name === "search_skills");
  const always = permittedTools([""]) ?? new Set<string>();
  const named = permittedTools([entry]) ?? new Set<string>();
  return offered.some(
    (tool) =>
      named.has(tool.name) && (!always.has(tool.name) || tool.name.toLowerCase() === lower || claudeCodeToolNames(tool.name).some((name) => name.toLowerCase() === lower)),
  );
}

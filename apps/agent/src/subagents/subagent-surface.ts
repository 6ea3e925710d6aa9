import type { StructuredToolInterface } from "@langchain/core/tools";
import { permittedTools } from "@thinktank/skills";
import type { AgentDefinition } from "@thinktank/subagents";
import { joinSections } from "../request/prepare-request.js";
import type { PromptSection, RequestSurface, ToolSurface } from "../request/request-context.js";

/** The lead's tools a sub-agent never gets: its own `task` (a deeper one is given when depth allows) and request_human_input (an interrupt inside a sub-agent cannot be answered). */
const leadOnlyTools: ReadonlySet<string> = new Set(["task", "request_human_input"]);

/** The skills surface: dropped when the agent's tool list leaves skills out. */
const skillTools: ReadonlySet<string> = new Set(["view_skill", "search_skills"]);
const skillSections: ReadonlySet<string> = new Set(["skills", "skill_contexts"]);

export interface SubagentSurfaceOptions {
  /** The agent's system prompt (readAgentPrompt). */
  readonly prompt: string;
  /** The sub-agent's own `task` tool, when it may delegate further (depth < subagents.max_depth). @default none */
  readonly task?: StructuredToolInterface;
}

/**
 * What a sub-agent runs with, made from the lead's surface of the same run (the same tool
 * instances: the thread's workspace and sandbox, its MCP sessions):
 * - system prompt: the agent's prompt, then the lead's skills sections (unless its tools leave
 *   skills out), the `<subagent_system>` section when it may delegate, the sections specialist
 *   contexts inherit (code mode's) and the environment section;
 * - tools: the lead's, filtered by `permittedTools(agent.tools)` (no list: all), without `task`
 *   (its own replaces it when it may delegate) and request_human_input; view_skill and
 *   search_skills only with the skills surface;
 * - a skill's specialist context inside it (view_skill) is the lead's, without the lead's tools
 *   the agent was not given;
 * - compact listing's per-message offers with the skills surface; no slash commands, no upload note.
 * Skills are left out when the agent lists tools and names none of `Skill`, `view_skill`,
 * `search_skills` (Claude Code's agents reach skills through its Skill tool).
 */
export function subagentSurface(lead: RequestSurface, agent: Pick<AgentDefinition, "tools">, options: SubagentSurfaceOptions): RequestSurface {
  const permitted = agent.tools ? permittedTools(agent.tools) : undefined;
  const withSkills = usesSkills(agent.tools);
  const offered = (tool: StructuredToolInterface): boolean =>
    !leadOnlyTools.has(tool.name) && (!permitted || permitted.has(tool.name)) && (withSkills || !skillTools.has(tool.name));
  const tools = [...lead.tools.filter(offered), ...(options.task ? [options.task] : [])];
  const withheld = new Set(lead.tools.filter((tool) => !offered(tool)).map((tool) => tool.name));
  const kept = (section: PromptSection): boolean =>
    section.id === "environment" || section.inherit === true || (withSkills && skillSections.has(section.id)) || (options.task !== undefined && section.id === "subagents");
  const sections: PromptSection[] = [{ id: "agent", text: options.prompt, order: 0 }, ...(lead.sections ?? []).filter(kept)];
  const specialist = lead.surfaceFor;
  const surfaceFor =
    withSkills && specialist
      ? async (activeSkill: string): Promise<ToolSurface | undefined> => {
          const surface = await specialist(activeSkill);
          if (!surface) return undefined;
          const own = surface.tools.filter((tool) => !withheld.has(tool.name) && !leadOnlyTools.has(tool.name));
          return { ...surface, tools: [...own, ...(options.task ? [options.task] : [])] };
        }
      : undefined;
  return {
    systemPrompt: joinSections(sections),
    sections,
    tools,
    ...(surfaceFor ? { surfaceFor } : {}),
    ...(withSkills && lead.skillContextFor ? { skillContextFor: lead.skillContextFor } : {}),
    ...(lead.hooks ? { hooks: lead.hooks } : {}),
  };
}

/** Whether an agent's tool list keeps the skills surface: no list, or one naming Skill (Claude Code's), view_skill or search_skills. */
function usesSkills(tools: readonly string[] | undefined): boolean {
  if (!tools || tools.length === 0) return true;
  return tools.some((entry) => ["skill", "view_skill", "search_skills"].includes(entry.replace(/\(.*\)$/s, "").trim().toLowerCase()));
}

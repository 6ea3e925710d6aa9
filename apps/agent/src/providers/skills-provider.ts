import type { StructuredToolInterface } from "@langchain/core/tools";
import { isThinktankError } from "@thinktank/core";
import { hostProgramsDenial, permittedTools, readSkillBody, readSkillContextSpec, specialistPrompt, type Skill, type SkillContextSpec } from "@thinktank/skills";
import type { InheritedSurface, RequestInfo, RequestProvider, ToolSurface } from "../request/request-context.js";
import { joinSections } from "../request/prepare-request.js";
import type { AgentRuntime } from "../runtime/agent-runtime.js";
import { createReadResourceTool } from "../skill-context/read-resource-tool.js";
import { createScopedTools } from "../skill-context/scoped-tools.js";
import { createSearchSkillsTool } from "../skill-context/search-skills-tool.js";
import { createLeaveSkillTool, createViewSkillTool } from "../skill-context/skill-switch-tools.js";
import { markSkillScriptTools } from "../tool-approval/script-tool-facts.js";

/**
 * Skills in the request, as config.skills.listing says (SkillListing): full, the `<skill_system>`
 * section with every enabled skill's name, description and location (level 1; order 10); compact,
 * a stable index of counts by group, `search_skills`, and the skills that best match each new
 * user message (`skillContextFor`, attached to that message, never to the system prompt). Both
 * give `view_skill` and the specialist context of the active skill (level 2: its body as the
 * instructions, its scoped tools and resources, the inherited tools restricted by its
 * allowed-tools). Sub-agents follow the same listing (`<subagent_system>`, order 25): every agent
 * by name, or a stable index with the agents offered per message beside the skills.
 */
export function createSkillsProvider(runtime: AgentRuntime): RequestProvider {
  return {
    name: "skills",
    async contribute(request) {
      const snapshot = await runtime.snapshotFor(request);
      const { listing } = snapshot;
      const specialists = new Map<string, Promise<ToolSurface | undefined>>();
      const listed = snapshot.skills.promptSection !== "";
      const compact = listing.mode === "compact";
      return {
        sections: [
          { id: "skills", text: listing.skillsSection, order: 10 },
          { id: "skill_contexts", text: listed ? viewSkillHint : "", order: 11 },
          // After the skills and commands sections (order 20); empty without agents (subagents.enabled false).
          { id: "subagents", text: listing.agentsSection, order: 25 },
        ],
        tools: [...(listed ? [createViewSkillTool(async () => (await runtime.snapshotFor(request)).skills, { compact })] : []), ...(listing.searchable ? [createSearchSkillsTool(listing)] : [])],
        ...(compact && runtime.config.skills.relevant_limit > 0 ? { skillContextFor: (message: string) => listing.relevantToBlended(message) } : {}),
        surfaceFor: (activeSkill, inherited) => {
          let surface = specialists.get(activeSkill);
          if (!surface) {
            const skill = snapshot.skills.skills.find((candidate) => candidate.identity === activeSkill && candidate.enabled);
            surface = skill ? specialistSurface(runtime, request, skill, inherited) : Promise.resolve(undefined);
            specialists.set(activeSkill, surface);
          }
          return surface;
        },
      };
    },
  };
}

const viewSkillHint =
  "For a longer task that one skill covers, view_skill(name) makes you that skill's specialist: its instructions become your system prompt and its own tools and resources are added; leave_skill returns here.";

async function specialistSurface(runtime: AgentRuntime, request: RequestInfo, skill: Skill, inherited: InheritedSurface): Promise<ToolSurface> {
  let spec: SkillContextSpec = { tools: [], resources: [] };
  const unavailable: { name: string; reason: string }[] = [];
  try {
    // Script tools carry the skill's trust: an untrusted skill's scripts run only in the sandbox, its folder mounted read-only.
    spec = readSkillContextSpec(skill.dir, { trusted: skill.trusted, containerDir: skill.containerDir });
  } catch (error) {
    if (!isThinktankError(error)) throw error;
    runtime.logger.warn({ skill: skill.identity }, error.message);
    unavailable.push({ name: "tools.json / resources.json", reason: error.message });
  }
  // plugins.host_programs: deny runs no program a plugin brings: its skills' script tools are not offered.
  const scriptsDenied = hostProgramsDenial(skill, runtime.config.plugins.host_programs);
  const scoped = await createScopedTools(spec.tools, { manager: runtime.codeMode.manager, scriptTools: runtime.scriptTools, threadId: request.threadId, runId: request.runId, user: request.ownerId, ...(scriptsDenied ? { scriptsDenied } : {}) });
  unavailable.push(...scoped.unavailable);
  markSkillScriptTools(scoped.tools, spec.tools, skill);
  const permitted = permittedTools(skill.allowedTools);
  const tools: StructuredToolInterface[] = [];
  const names = new Set<string>();
  const add = (tool: StructuredToolInterface): void => {
    if (names.has(tool.name)) return;
    names.add(tool.name);
    tools.push(tool);
  };
  scoped.tools.forEach(add);
  add(createLeaveSkillTool());
  if (spec.resources.length > 0) add(createReadResourceTool(spec.resources, runtime.codeMode.manager, request.ownerId));
  for (const tool of inherited.tools) if (!permitted || permitted.has(tool.name)) add(tool);
  const text = specialistPrompt({
    skill,
    body: readSkillBody(skill),
    resources: spec.resources,
    scopedTools: scoped.tools.map((tool) => tool.name),
    unavailableTools: unavailable,
    ...(permitted ? { allowedTools: skill.allowedTools } : {}),
  });
  return { systemPrompt: joinSections([{ id: "skill_context", text, order: 0 }, ...inherited.sections]), tools, skill: skill.identity };
}

import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { findSkill, type SkillsSnapshot } from "@thinktank/skills";
import { withCodedErrors } from "../tools/tool-failure.js";

/** What a tool result asks the graph to change in the state (carried as the tool message's artifact). */
export interface StateEffect {
  /** The skill identity to activate, or null to return to the router context. */
  readonly activeSkill: string | null;
}

/**
 * `view_skill(name)`: switches to the skill's specialist context. The tool result carries the
 * state effect (artifact `{ activeSkill }`) the graph applies, so the next model call is
 * re-prompted with the skill's body as its instructions and its scoped tools.
 */
export function createViewSkillTool(skills: () => Promise<SkillsSnapshot>, options: { readonly compact?: boolean } = {}): StructuredToolInterface {
  // In compact listing no skill is in the system prompt: they come from <relevant_skills> and search_skills.
  const from = options.compact ? "a skill (from <relevant_skills> or search_skills)" : "a skill from <available_skills>";
  return tool(
    ({ name }: { name: string }) =>
      withCodedErrors(async (): Promise<[string, StateEffect]> => {
        const snapshot = await skills();
        const skill = findSkill(
          snapshot.skills.filter((candidate) => candidate.enabled),
          name,
        );
        const content = `Switched to the specialist context of skill ${skill.name} (${skill.identity}). Its instructions, tools and resources are now in your system prompt; follow them. Call leave_skill when done.`;
        return [content, { activeSkill: skill.identity }];
      }),
    {
      name: "view_skill",
      description:
        `Load ${from} as your working context: your next step gets the skill's full instructions as your system prompt, plus the tools and resources it brings. Use it for a task that matches the skill; leave_skill returns.`,
      schema: { type: "object", properties: { name: { type: "string", description: "The skill's name as listed (or its identity, e.g. public:pdf)." } }, required: ["name"], additionalProperties: false },
      responseFormat: "content_and_artifact",
    },
  );
}

/** `leave_skill()`: back to the general (router) context with every skill listed again. */
export function createLeaveSkillTool(): StructuredToolInterface {
  return tool(async (): Promise<[string, StateEffect]> => ["Back in the general context.", { activeSkill: null }], {
    name: "leave_skill",
    description: "Leave the active skill's context and return to the general context (all skills and tools), e.g. when the task is done or needs another skill.",
    schema: { type: "object", properties: {}, additionalProperties: false },
    responseFormat: "content_and_artifact",
  });
}

/** The state effect a tool message carries, if any. */
export function stateEffectOf(message: { artifact?: unknown; status?: string }): StateEffect | undefined {
  if (message.status === "error") return undefined;
  const artifact = message.artifact as { activeSkill?: unknown } | undefined;
  if (!artifact || typeof artifact !== "object" || !("activeSkill" in artifact)) return undefined;
  const value = artifact.activeSkill;
  return typeof value === "string" || value === null ? { activeSkill: value } : undefined;
}

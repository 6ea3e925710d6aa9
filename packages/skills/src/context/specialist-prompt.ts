import { escapeXml } from "../escape-xml.js";
import type { Skill } from "../skill-types.js";
import type { SkillResource } from "./skill-context-spec.js";

export interface SpecialistPromptInput {
  readonly skill: Skill;
  /** The SKILL.md body: the specialist's instructions. */
  readonly body: string;
  readonly resources: readonly SkillResource[];
  /** Names of the skill's own tools (tools.json) offered now. */
  readonly scopedTools: readonly string[];
  readonly unavailableTools: readonly { readonly name: string; readonly reason: string }[];
  /** allowed-tools as written, when it restricts the tools. */
  readonly allowedTools?: readonly string[];
}

/**
 * The level-2 system prompt of a skill's specialist context (before the inherited sections and
 * the environment): the skill's body as the instructions, its resources, and how to work and
 * leave. Deterministic for identical input.
 */
export function specialistPrompt(input: SpecialistPromptInput): string {
  const { skill } = input;
  const parts = [`<skill_context name="${escapeXml(skill.name)}" location="${escapeXml(skill.containerPath)}">\n${input.body.trim()}\n</skill_context>`];
  if (input.resources.length > 0) {
    const entries = input.resources.map((resource) => `<resource>\n<uri>${escapeXml(resource.uri)}</uri>\n<description>${escapeXml(resource.description)}</description>\n</resource>`);
    parts.push(["<skill_resources>", ...entries, "</skill_resources>"].join("\n"));
  }
  const work = [
    `You are working in the specialist context of the skill "${skill.name}": follow its instructions above. Paths they mention are relative to ${skill.containerDir}.`,
  ];
  if (input.scopedTools.length > 0) work.push(`This skill's own tools: ${input.scopedTools.join(", ")}.`);
  if (input.unavailableTools.length > 0) work.push(`Not available now: ${input.unavailableTools.map((entry) => `${entry.name} (${entry.reason})`).join("; ")}.`);
  if (input.resources.length > 0) work.push("Read a resource with read_resource(uri).");
  if (input.allowedTools) work.push(`The skill allows only these tools: ${input.allowedTools.join(", ")}.`);
  work.push("When the task is done, or needs another skill, call leave_skill to return to the general context.");
  parts.push(work.join("\n"));
  return parts.join("\n\n");
}

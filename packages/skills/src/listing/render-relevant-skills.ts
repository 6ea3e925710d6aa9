import { escapeXml } from "../escape-xml.js";
import { renderNamedSkills } from "./render-named-skills.js";

/** A skill offered with a message: enough for the model to tell which it is and to read it. */
export interface RelevantSkill {
  readonly identity: string;
  readonly name: string;
  /** The description's first sentence (as skill search gives it). */
  readonly description: string;
  /** The SKILL.md path the model reads. */
  readonly location: string;
}

/** A skill named with a message without its description: cheap enough to offer a dozen more. */
export type NamedSkill = Pick<RelevantSkill, "identity" | "name" | "location">;

/** A slash command offered with a message (a plugin command, or a skill only the user may run). */
export interface RelevantCommand {
  readonly kind: "command" | "skill";
  readonly invocation: string;
  readonly description: string;
  readonly argumentHint?: string;
  readonly identity?: string;
}

/** A sub-agent offered with a message: what to pass `task` as subagent_type, and when it fits. */
export interface RelevantAgent {
  readonly identity: string;
  /** The bare name when unique among the listed agents, else the identity. */
  readonly subagentType: string;
  /** The description without its examples, in one line. */
  readonly description: string;
}

/**
 * What one user message is offered in compact listing: the skills and slash commands that best
 * match it, best first. Computed once when the message enters a thread and stored on it
 * (`additional_kwargs.skill_context`), so the text the model sees for that message never changes.
 */
export interface RelevantSkills {
  readonly skills: readonly RelevantSkill[];
  /**
   * The skills ranked next after `skills`, named with their location only (absent when there are
   * none, and on messages stored before they were offered): a request in words no description
   * uses often has its skill a few places down, and a name costs a fifth of a description.
   */
  readonly moreSkills?: readonly NamedSkill[];
  readonly commands: readonly RelevantCommand[];
  /** Sub-agents that fit it (absent on messages stored before agents were offered, and without agents). */
  readonly agents?: readonly RelevantAgent[];
  /** Sub-agents ranked next, named by subagent_type alone (absent when there are none). */
  readonly moreAgents?: readonly Pick<RelevantAgent, "identity" | "subagentType">[];
}

/**
 * The `<relevant_skills>` block appended to the copy of a user message sent to the model: each
 * skill with its name, location and one-line description, then the commands, then the sub-agents.
 * "" when nothing is offered. Every value is XML-escaped; identical input gives identical bytes.
 */
export function renderRelevantSkills(relevant: RelevantSkills): string {
  const agents = relevant.agents ?? [];
  const moreAgents = relevant.moreAgents ?? [];
  const more = relevant.moreSkills ?? [];
  if (relevant.skills.length === 0 && more.length === 0 && relevant.commands.length === 0 && agents.length === 0 && moreAgents.length === 0) return "";
  const lines = ["<relevant_skills>"];
  if (relevant.skills.length > 0) {
    lines.push("Installed skills that may fit this message (read a skill's SKILL.md at its location before using it; search_skills finds others):");
    for (const skill of relevant.skills) lines.push(renderRelevantSkillLine(skill));
  }
  lines.push(...renderNamedSkills("Further skills that may fit, by folder and name (a skill's SKILL.md is at its folder + name + /SKILL.md):", more));
  if (relevant.commands.length > 0) {
    lines.push("Slash commands the user could run for it:");
    for (const command of relevant.commands) {
      const usage = command.argumentHint ? `${command.invocation} ${command.argumentHint}` : command.invocation;
      // A skill the user alone may run is named by its identity too, so a reader can tell which it is.
      const which = command.kind === "skill" && command.identity ? ` (skill ${command.identity})` : "";
      lines.push(`- ${escapeXml(usage)}${escapeXml(which)}: ${escapeXml(command.description)}`);
    }
  }
  if (agents.length > 0) {
    lines.push("Sub-agents that could take it on (task with this subagent_type):");
    for (const agent of agents) lines.push(`- ${escapeXml(agent.subagentType)}: ${escapeXml(agent.description)}`);
  }
  lines.push(...renderNamed("Further sub-agents that may fit, by subagent_type (search_skills with kind agents describes one):", moreAgents.map((agent) => ({ name: agent.subagentType }))));
  lines.push("</relevant_skills>");
  return lines.join("\n");
}

/**
 * Entries offered by name alone, best first, under a heading: one line of "name (where)" pairs,
 * where `where` tells how to reach it (a skill's SKILL.md, an agent's subagent_type, ...).
 * Values are XML-escaped. Shared by every kind an offer names cheaply.
 */
export function renderNamed(heading: string, entries: readonly { readonly name: string; readonly where?: string }[]): string[] {
  if (entries.length === 0) return [];
  return [heading, entries.map((entry) => (entry.where ? `${escapeXml(entry.name)} (${escapeXml(entry.where)})` : escapeXml(entry.name))).join(", ")];
}

/** One skill's line in `<relevant_skills>` (what a skill costs on a message it is offered with). */
export function renderRelevantSkillLine(skill: Pick<RelevantSkill, "name" | "location" | "description">): string {
  return `- ${escapeXml(skill.name)} (${escapeXml(skill.location)}): ${escapeXml(skill.description)}`;
}

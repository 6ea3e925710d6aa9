import fs from "node:fs";
import { parseFrontmatter } from "@thinktank/core";
import { expandCommandBody, nearMatches, splitArguments, type PluginSnapshot } from "@thinktank/plugins";
import { escapeXml, type Skill, type SkillsSnapshot } from "@thinktank/skills";
import type { CommandInvocation, CommandResolution } from "./command-resolution.js";

/** One slash command the user can run. */
export interface AgentCommandEntry {
  readonly kind: "command" | "skill";
  readonly name: string;
  /** `/<plugin>:<name>` for plugin commands and skills, `/<name>` for public and custom skills. */
  readonly invocation: string;
  readonly description: string;
  readonly argumentHint?: string;
  readonly plugin?: string;
  readonly identity?: string;
  /** Where the body comes from: the plugin entry's body, or the skill's SKILL.md read when invoked. */
  readonly body?: string;
  readonly skill?: Skill;
}

// `/<plugin>:<name>` (the name may hold '/', as skill names do) or `/<name>`, then optional arguments.
const invocationPattern = /^\/([A-Za-z0-9][A-Za-z0-9._-]*)(?::(\S+))?(?:\s+([\s\S]*))?$/;

/**
 * The slash commands of one snapshot: the enabled plugins' commands and user-invocable skills
 * (`/<plugin>:<name>`, or `/<name>` when only one has that name), and the user-invocable public and
 * custom skills (`/<name>`). A disabled skill is no command. Expansion fills `$ARGUMENTS` and
 * `$1`..`$9` as the plugins library does; a skill's body is read from its SKILL.md when invoked.
 * Unknown commands answer COMMAND_NOT_FOUND with near matches; a name several entries share,
 * COMMAND_AMBIGUOUS with each invocation.
 */
export class AgentCommands {
  readonly entries: readonly AgentCommandEntry[];
  private readonly hidden = new Set<string>();
  private section: string | undefined;

  constructor(skills: SkillsSnapshot, plugins: PluginSnapshot) {
    const byIdentity = new Map(skills.skills.map((skill) => [skill.identity, skill]));
    const entries: AgentCommandEntry[] = [];
    for (const skill of skills.skills) {
      if (skill.category !== "public" && skill.category !== "custom") continue;
      if (!skill.enabled) continue;
      if (!skill.userInvocable) {
        this.hidden.add(skill.name);
        continue;
      }
      entries.push({ kind: "skill", name: skill.name, invocation: `/${skill.name}`, description: skill.description, identity: skill.identity, skill, ...(skill.argumentHint ? { argumentHint: skill.argumentHint } : {}) });
    }
    for (const entry of plugins.commands.entries) {
      const skill = entry.identity ? byIdentity.get(entry.identity) : undefined;
      if (entry.kind === "skill" && skill && !skill.enabled) continue;
      entries.push({
        kind: entry.kind,
        name: entry.name,
        invocation: entry.invocation,
        description: entry.description,
        plugin: entry.plugin,
        body: entry.body,
        ...(entry.identity ? { identity: entry.identity } : {}),
        ...(skill ? { skill } : {}),
        ...(entry.argumentHint !== undefined ? { argumentHint: entry.argumentHint } : {}),
      });
    }
    for (const plugin of plugins.plugins) for (const skill of plugin.skills) if (!skill.userInvocable) this.hidden.add(`${plugin.name}:${skill.name}`);
    this.entries = entries;
  }

  /** Expands a message that starts with a slash command; `none` for any other message (`/usr/bin/env`, `please run /x`). */
  resolve(message: string): CommandResolution {
    const match = invocationPattern.exec(message.trim());
    if (!match) return { kind: "none" };
    const [, first, second, rest] = match as unknown as [string, string, string | undefined, string | undefined];
    const typed = second === undefined ? `/${first}` : `/${first}:${second}`;
    const wanted = second === undefined ? first : `${first}:${second}`;
    const found = this.entries.filter((entry) => (second === undefined ? entry.name === first : entry.plugin === first && entry.name === second));
    if (found.length > 1) {
      const options = found.map((entry) => entry.invocation);
      return { kind: "error", error: { code: "COMMAND_AMBIGUOUS", message: `${typed} names ${found.length} commands; use one of ${options.join(", ")}`, suggestions: options } };
    }
    const entry = found[0];
    if (!entry) return this.notFound(typed, wanted);
    const raw = (rest ?? "").trim();
    const positional = splitArguments(raw);
    const body = entry.body ?? readSkillBody(entry.skill);
    const expanded = expandCommandBody(body, raw, positional).text.trim();
    const text = entry.kind === "skill" && entry.skill ? `Skill ${entry.skill.name} (${entry.skill.containerPath}; its paths are relative to ${entry.skill.containerDir}):\n\n${expanded}` : expanded;
    const command: CommandInvocation = {
      kind: entry.kind,
      name: entry.name,
      invocation: entry.invocation,
      ...(entry.plugin ? { plugin: entry.plugin } : {}),
      ...(entry.identity ? { identity: entry.identity } : {}),
      typed,
      arguments: { raw, positional },
    };
    return { kind: "expanded", text, command };
  }

  /**
   * The `<slash_commands>` prompt section; "" without commands. Commands get their invocation,
   * argument hint and first sentence; skills the model already sees in <available_skills> only
   * their invocation and hint (their description is there), so the section stays small.
   */
  promptSection(): string {
    if (this.section !== undefined) return this.section;
    if (this.entries.length === 0) return (this.section = "");
    const usage = (entry: AgentCommandEntry): string => escapeXml(entry.argumentHint ? `${entry.invocation} ${entry.argumentHint}` : entry.invocation);
    const listedSkill = (entry: AgentCommandEntry): boolean => entry.kind === "skill" && entry.skill !== undefined && !entry.skill.disableModelInvocation;
    const described = this.entries.filter((entry) => !listedSkill(entry)).map((entry) => `${usage(entry)}: ${escapeXml(firstSentence(entry.description))}`);
    const skills = this.entries.filter(listedSkill).map(usage);
    this.section = [
      "<slash_commands>",
      "The user can run these by starting a message with one (you then see the command's instructions instead). Suggest one when it fits what the user wants.",
      ...described,
      ...(skills.length > 0 ? [`Skills the user can run the same way (described in <available_skills>): ${skills.join(", ")}`] : []),
      "</slash_commands>",
    ].join("\n");
    return this.section;
  }

  private notFound(typed: string, wanted: string): CommandResolution {
    if (this.hidden.has(wanted)) {
      return { kind: "error", error: { code: "COMMAND_NOT_FOUND", message: `${typed} is a skill marked 'user-invocable: false'; only the model can use it`, suggestions: [] } };
    }
    const names = this.entries.map((entry) => entry.invocation.slice(1));
    const suggestions = nearMatches(wanted, names).map((name) => `/${name}`);
    const hint = suggestions.length > 0 ? `; did you mean ${suggestions.join(", ")}?` : this.entries.length === 0 ? "; no commands are available" : "";
    return { kind: "error", error: { code: "COMMAND_NOT_FOUND", message: `unknown command ${typed}${hint}`, suggestions } };
  }
}

function readSkillBody(skill: Skill | undefined): string {
  if (!skill) return "";
  try {
    const parsed = parseFrontmatter(fs.readFileSync(skill.file, "utf8"));
    return parsed.body.trim();
  } catch {
    return `(the SKILL.md of ${skill.name} could not be read; read ${skill.containerPath})`;
  }
}

/** The first sentence (or line), cut at 150 characters. */
function firstSentence(text: string): string {
  const line = text.split("\n").find((candidate) => candidate.trim() !== "")?.trim() ?? "";
  const sentence = /^.*?[.!?](?=\s|$)/.exec(line)?.[0] ?? line;
  return sentence.length > 150 ? `${sentence.slice(0, 149)}…` : sentence;
}

import { readSkillBody } from "@thinktank/skills";
import type { Skill, SkillsSnapshot } from "@thinktank/skills";
import type { LoadedPlugin } from "../plugin-types.js";
import { nearMatches } from "@thinktank/core";
import { expandCommandBody } from "./expand-command-body.js";
import { renderSlashCommands } from "./render-slash-commands.js";
import type { SlashCommandEntry } from "./slash-command-entry.js";
import { splitArguments } from "./split-arguments.js";

/** Which slash command a message ran: the agent records it on the expanded message (additional_kwargs.slash_command). */
export interface SlashCommandInvocation {
  /** A plugin command, or a user-invocable skill (public, custom or plugin). */
  readonly kind: "command" | "skill";
  readonly name: string;
  /** How it is invoked: `/<plugin>:<name>` for plugin entries, `/<name>` for public and custom skills. */
  readonly invocation: string;
  readonly plugin?: string;
  /** For a skill: its identity (`public:notes`, `plugin:sales:call-prep`). */
  readonly identity?: string;
  /** What the user typed as the command (`/sales:call-prep`, `/call-prep`). */
  readonly typed: string;
  readonly arguments: { readonly raw: string; readonly positional: readonly string[] };
}

/** What a user message resolves to: not a command, an expansion, or an error for the user (never a throw). */
export type SlashCommandResolution =
  | { readonly kind: "none" }
  | { readonly kind: "expanded"; readonly text: string; readonly command: SlashCommandInvocation }
  | {
      readonly kind: "error";
      readonly error: { readonly code: "COMMAND_NOT_FOUND" | "COMMAND_AMBIGUOUS"; readonly message: string; readonly suggestions: readonly string[] };
    };

export interface SlashCommandsOptions {
  /**
   * The skills snapshot: its enabled user-invocable public and custom skills join as `/<name>`
   * (before the plugin entries), a plugin skill it has disabled is no command, and a skill's
   * expansion starts by naming its SKILL.md and folder. @default plugin entries only
   */
  readonly skills?: Pick<SkillsSnapshot, "skills">;
  /** The plugin's folder as the model sees it, for `${CLAUDE_PLUGIN_ROOT}` in bodies. @default left as written */
  readonly pluginRootFor?: (plugin: string) => string | undefined;
}

// `/<plugin>:<name>` (the name may hold '/', as skill names do) or `/<name>`, then optional arguments.
const invocationPattern = /^\/([A-Za-z0-9][A-Za-z0-9._-]*)(?::(\S+))?(?:\s+([\s\S]*))?$/;

/**
 * The slash commands of a set of (enabled) plugins, with the skills snapshot's public and custom
 * skills when given, and the expansion of user messages that invoke them. In one plugin a command
 * shadows a skill of the same name (the skill stays available to the model). `/<name>` works when
 * exactly one entry has that name. Expansion fills `$ARGUMENTS` and `$1`..`$9`. Unknown commands
 * answer COMMAND_NOT_FOUND with near matches; a name several entries share, COMMAND_AMBIGUOUS with
 * each invocation.
 */
export class SlashCommands {
  readonly entries: readonly SlashCommandEntry[];
  /** `<name>` of public and custom skills and `<plugin>:<skill>` of plugin skills marked `user-invocable: false`, for a clearer error. */
  private readonly hidden = new Set<string>();
  private readonly options: SlashCommandsOptions;
  private section: string | undefined;

  constructor(plugins: readonly LoadedPlugin[], options: SlashCommandsOptions = {}) {
    this.options = options;
    const skills = options.skills?.skills ?? [];
    const byIdentity = new Map(skills.map((skill) => [skill.identity, skill]));
    const entries: SlashCommandEntry[] = [];
    for (const skill of skills) {
      if (skill.category !== "public" && skill.category !== "custom") continue;
      if (!skill.enabled) continue;
      if (!skill.userInvocable) {
        this.hidden.add(skill.name);
        continue;
      }
      entries.push({ kind: "skill", name: skill.name, invocation: `/${typeableName(skill.name)}`, description: skill.description, identity: skill.identity, skill, ...(skill.argumentHint ? { argumentHint: skill.argumentHint } : {}) });
    }
    for (const plugin of plugins) {
      for (const entry of pluginEntries(plugin)) {
        const skill = entry.identity ? byIdentity.get(entry.identity) : undefined;
        if (entry.kind === "skill" && skill && !skill.enabled) continue;
        entries.push(skill ? { ...entry, skill } : entry);
      }
      for (const skill of plugin.skills) if (!skill.userInvocable) this.hidden.add(`${plugin.name}:${skill.name}`);
    }
    this.entries = entries;
  }

  /**
   * Expands a user message that starts with a slash command. Answers `none` for any other
   * message (including paths such as `/usr/bin/env` and `please run /x`), and an error with near
   * matches for a command that does not exist or a `/<name>` that several entries have.
   */
  resolve(message: string): SlashCommandResolution {
    const match = invocationPattern.exec(message.trim());
    if (!match) return { kind: "none" };
    const [, first, second, rest] = match as unknown as [string, string, string | undefined, string | undefined];
    const typed = second === undefined ? `/${first}` : `/${first}:${second}`;
    const wanted = second === undefined ? first : `${first}:${second}`;
    const found = this.entries.filter((entry) => (second === undefined ? calledAs(entry) === first : entry.plugin === first && calledAs(entry) === second));
    if (found.length > 1) {
      const options = found.map((entry) => entry.invocation);
      return { kind: "error", error: { code: "COMMAND_AMBIGUOUS", message: `${typed} names ${found.length} commands; use one of ${options.join(", ")}`, suggestions: options } };
    }
    const entry = found[0];
    if (!entry) return this.notFound(typed, wanted);
    const raw = (rest ?? "").trim();
    const positional = splitArguments(raw);
    const body = entry.body ?? readSkillBodyOf(entry.skill);
    const pluginRoot = entry.plugin === undefined ? undefined : this.options.pluginRootFor?.(entry.plugin);
    const expanded = expandCommandBody(body, raw, positional, pluginRoot).text.trim();
    const text = entry.kind === "skill" && entry.skill ? `Skill ${entry.skill.name} (${entry.skill.containerPath}; its paths are relative to ${entry.skill.containerDir}):\n\n${expanded}` : expanded;
    const command: SlashCommandInvocation = {
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

  /** The `<slash_commands>` prompt section (see renderSlashCommands); "" without commands. */
  promptSection(): string {
    this.section ??= renderSlashCommands(this.entries);
    return this.section;
  }

  private notFound(typed: string, wanted: string): SlashCommandResolution {
    if (this.hidden.has(wanted)) {
      return { kind: "error", error: { code: "COMMAND_NOT_FOUND", message: `${typed} is a skill marked 'user-invocable: false'; only the model can use it`, suggestions: [] } };
    }
    const names = this.entries.map((entry) => entry.invocation.slice(1));
    const suggestions = nearMatches(wanted, names).map((name) => `/${name}`);
    const hint = suggestions.length > 0 ? `; did you mean ${suggestions.join(", ")}?` : this.entries.length === 0 ? "; no commands are available" : "";
    return { kind: "error", error: { code: "COMMAND_NOT_FOUND", message: `unknown command ${typed}${hint}`, suggestions } };
  }
}

/** A plugin's commands, then its user-invocable skills that no command of the same name shadows. */
function pluginEntries(plugin: LoadedPlugin): SlashCommandEntry[] {
  const names = new Map<string, SlashCommandEntry>();
  for (const command of plugin.commands) {
    names.set(command.name, {
      kind: "command",
      plugin: plugin.name,
      name: command.name,
      invocation: `/${plugin.name}:${typeableName(command.name, true)}`,
      description: command.description,
      ...(command.argumentHint !== undefined ? { argumentHint: command.argumentHint } : {}),
      ...(command.allowedTools ? { allowedTools: command.allowedTools } : {}),
      ...(command.model ? { model: command.model } : {}),
      file: command.file,
      body: command.body,
    });
  }
  for (const skill of plugin.skills) {
    if (!skill.userInvocable || names.has(skill.name)) continue;
    names.set(skill.name, {
      kind: "skill",
      plugin: plugin.name,
      name: skill.name,
      invocation: `/${plugin.name}:${typeableName(skill.name, true)}`,
      description: skill.description,
      ...(skill.argumentHint !== undefined ? { argumentHint: skill.argumentHint } : {}),
      ...(skill.allowedTools ? { allowedTools: skill.allowedTools } : {}),
      file: skill.file,
      identity: skill.identity,
      body: skill.body,
    });
  }
  return [...names.values()];
}

/**
 * The name as it can be typed after `/` (or, with `afterPlugin`, after `/<plugin>:`, where any name
 * without whitespace is typeable): the name itself when it can, else
 * (a skill named `Git Commit Helper`, which Claude Code loads with a warning) its kebab-case form,
 * `git-commit-helper`, so that no command is lost to a space.
 */
function typeableName(name: string, afterPlugin = false): string {
  if ((afterPlugin ? /^\S+$/ : /^[A-Za-z0-9][A-Za-z0-9._-]*$/).test(name)) return name;
  const kebab = name.toLowerCase().replace(/[^a-z0-9._-]+/g, "-").replace(/^[^a-z0-9]+|-+$/g, "");
  return kebab === "" ? name : kebab;
}

/** The name an entry is typed by: its invocation without `/` and `<plugin>:`. */
function calledAs(entry: SlashCommandEntry): string {
  return entry.invocation.slice(entry.plugin === undefined ? 1 : entry.plugin.length + 2);
}

/** A public or custom skill's SKILL.md body, read when the skill is invoked. */
function readSkillBodyOf(skill: Skill | undefined): string {
  return skill ? readSkillBody(skill).trim() : "";
}

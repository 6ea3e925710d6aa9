import type { LoadedPlugin } from "../plugin-types.js";
import { nearMatches } from "./edit-distance.js";
import { expandCommandBody } from "./expand-command-body.js";
import { splitArguments } from "./split-arguments.js";

/** Something a user can run as `/<plugin>:<name>`: a plugin command, or a user-invocable plugin skill. */
export interface SlashCommandEntry {
  readonly kind: "command" | "skill";
  readonly plugin: string;
  readonly name: string;
  /** `/<plugin>:<name>` */
  readonly invocation: string;
  readonly description: string;
  readonly argumentHint?: string;
  readonly allowedTools?: readonly string[];
  readonly model?: string;
  /** The file it comes from, relative to the plugin root. */
  readonly file: string;
  /** For a skill: `plugin:<plugin>:<name>`. */
  readonly identity?: string;
  readonly body: string;
}

/** What a message expanded into, and which command ran. */
export interface SlashCommandExpansion {
  /** The text the model sees instead of the user's message. */
  readonly text: string;
  readonly command: Omit<SlashCommandEntry, "body">;
  /** What the user typed as the command: `/sales:call-prep` or `/call-prep`. */
  readonly typed: string;
  readonly arguments: { readonly raw: string; readonly positional: readonly string[] };
}

export type SlashCommandResolution =
  | { readonly kind: "none" }
  | { readonly kind: "expanded"; readonly expansion: SlashCommandExpansion }
  | {
      readonly kind: "error";
      readonly error: { readonly code: "COMMAND_NOT_FOUND" | "COMMAND_AMBIGUOUS"; readonly message: string; readonly suggestions: readonly string[] };
    };

export interface SlashCommandsOptions {
  /** The plugin's folder as the model sees it, for `${CLAUDE_PLUGIN_ROOT}` in bodies. @default left as written */
  readonly pluginRootFor?: (plugin: string) => string | undefined;
}

// `/<plugin>:<name>` (the name may hold '/', as skill names do) or `/<name>`, then optional arguments.
const invocationPattern = /^\/([A-Za-z0-9][A-Za-z0-9._-]*)(?::(\S+))?(?:\s+([\s\S]*))?$/;

/**
 * The slash commands of a set of (enabled) plugins, and the expansion of user messages that
 * invoke them. In one plugin a command shadows a skill of the same name (the skill stays
 * available to the model). `/<name>` works when exactly one plugin has that name.
 */
export class SlashCommands {
  readonly entries: readonly SlashCommandEntry[];
  private readonly byPlugin = new Map<string, Map<string, SlashCommandEntry>>();
  /** `<plugin>:<skill>` of skills marked `user-invocable: false`, for a clearer error. */
  private readonly hiddenSkills = new Set<string>();
  private readonly options: SlashCommandsOptions;

  constructor(plugins: readonly LoadedPlugin[], options: SlashCommandsOptions = {}) {
    this.options = options;
    const entries: SlashCommandEntry[] = [];
    for (const plugin of plugins) {
      const names = new Map<string, SlashCommandEntry>();
      for (const command of plugin.commands) {
        const entry: SlashCommandEntry = {
          kind: "command",
          plugin: plugin.name,
          name: command.name,
          invocation: `/${plugin.name}:${command.name}`,
          description: command.description,
          ...(command.argumentHint !== undefined ? { argumentHint: command.argumentHint } : {}),
          ...(command.allowedTools ? { allowedTools: command.allowedTools } : {}),
          ...(command.model ? { model: command.model } : {}),
          file: command.file,
          body: command.body,
        };
        names.set(command.name, entry);
      }
      for (const skill of plugin.skills) {
        if (!skill.userInvocable) this.hiddenSkills.add(`${plugin.name}:${skill.name}`);
        if (!skill.userInvocable || names.has(skill.name)) continue;
        names.set(skill.name, {
          kind: "skill",
          plugin: plugin.name,
          name: skill.name,
          invocation: `/${plugin.name}:${skill.name}`,
          description: skill.description,
          ...(skill.argumentHint !== undefined ? { argumentHint: skill.argumentHint } : {}),
          ...(skill.allowedTools ? { allowedTools: skill.allowedTools } : {}),
          file: skill.file,
          identity: skill.identity,
          body: skill.body,
        });
      }
      this.byPlugin.set(plugin.name, names);
      entries.push(...names.values());
    }
    this.entries = entries;
  }

  /** The entry a `/<plugin>:<name>` names, if any. */
  get(plugin: string, name: string): SlashCommandEntry | undefined {
    return this.byPlugin.get(plugin)?.get(name);
  }

  /**
   * Expands a user message that starts with a slash command. Answers `none` for any other
   * message (including paths such as `/usr/bin/env`), and an error with near matches for a
   * command that does not exist or a `/<name>` that several plugins have.
   */
  resolve(message: string): SlashCommandResolution {
    const match = invocationPattern.exec(message.trim());
    if (!match) return { kind: "none" };
    const [, first, second, rest] = match as unknown as [string, string, string | undefined, string | undefined];
    const typed = second === undefined ? `/${first}` : `/${first}:${second}`;
    const raw = (rest ?? "").trim();
    let entry: SlashCommandEntry | undefined;
    if (second !== undefined) {
      entry = this.get(first, second);
      if (!entry) return this.notFound(typed, `${first}:${second}`);
    } else {
      const found = this.entries.filter((e) => e.name === first);
      if (found.length === 0) return this.notFound(typed, first);
      if (found.length > 1) {
        const options = found.map((e) => e.invocation);
        return {
          kind: "error",
          error: { code: "COMMAND_AMBIGUOUS", message: `${typed} is defined by ${found.length} plugins; use one of ${options.join(", ")}`, suggestions: options },
        };
      }
      entry = found[0]!;
    }
    const positional = splitArguments(raw);
    const { text } = expandCommandBody(entry.body, raw, positional, this.options.pluginRootFor?.(entry.plugin));
    const { body: _body, ...command } = entry;
    return { kind: "expanded", expansion: { text, command, typed, arguments: { raw, positional } } };
  }

  private notFound(typed: string, wanted: string): SlashCommandResolution {
    if (this.hiddenSkills.has(wanted)) {
      return { kind: "error", error: { code: "COMMAND_NOT_FOUND", message: `${typed} is a skill marked 'user-invocable: false'; only the model can use it`, suggestions: [] } };
    }
    const suggestions = nearMatches(wanted, this.entries.map((e) => `${e.plugin}:${e.name}`)).map((s) => `/${s}`);
    const hint = suggestions.length > 0 ? `; did you mean ${suggestions.join(", ")}?` : this.entries.length === 0 ? "; no plugin commands are available" : "";
    return { kind: "error", error: { code: "COMMAND_NOT_FOUND", message: `unknown command ${typed}${hint}`, suggestions } };
  }
}

import type { ParsedAgent } from "@thinktank/subagents";

/**
 * The shapes of a loaded Claude Code plugin. Paths called `file` or `dir` are relative to the
 * plugin root with `/` separators; `root` is absolute.
 */

/** A relative path, or several, as the manifest's component fields take them. */
export type ComponentPaths = string | readonly string[];

export interface PluginAuthor {
  readonly name?: string;
  readonly email?: string;
  readonly url?: string;
  readonly [key: string]: unknown;
}

/** `.claude-plugin/plugin.json` as written (unknown fields kept), or `{ name: <folder> }` without one. */
export interface PluginManifest {
  readonly name: string;
  readonly version?: string;
  readonly description?: string;
  readonly author?: PluginAuthor | string;
  readonly homepage?: string;
  readonly repository?: string | Readonly<Record<string, unknown>>;
  readonly license?: string;
  readonly keywords?: readonly string[];
  readonly commands?: ComponentPaths;
  readonly agents?: ComponentPaths;
  readonly skills?: ComponentPaths;
  readonly outputStyles?: ComponentPaths;
  readonly hooks?: ComponentPaths | Readonly<Record<string, unknown>>;
  readonly mcpServers?: ComponentPaths | Readonly<Record<string, unknown>>;
  readonly lspServers?: ComponentPaths | Readonly<Record<string, unknown>>;
  readonly [key: string]: unknown;
}

/** Something wrong in a plugin: an error refuses an install; a warning is reported and the plugin still works. */
export interface PluginProblem {
  readonly severity: "error" | "warning";
  /**
   * A warning for what Claude Code loads but a strict reading refuses (a departure from the
   * Agent Skills spec, YAML read line by line, a link copied, a skills path naming one skill):
   * an install with `strict` refuses it.
   */
  readonly lenient?: true;
  /** The file it is about, relative to the plugin root ("." for the plugin as a whole). */
  readonly file: string;
  readonly message: string;
  readonly line?: number;
}

/** `commands/<name>.md`: a slash command `/<plugin>:<name>`. */
export interface PluginCommand {
  readonly plugin: string;
  /** The file name without `.md`. */
  readonly name: string;
  readonly file: string;
  /** From frontmatter, else the first non-empty line of the body. */
  readonly description: string;
  /** Always text: a hint YAML read as a list (`[a, b]`) is shown as written. */
  readonly argumentHint?: string;
  /** Always a list: a comma- or space-separated string is split (parentheses kept whole). */
  readonly allowedTools?: readonly string[];
  readonly model?: string;
  readonly disableModelInvocation: boolean;
  readonly frontmatter: Readonly<Record<string, unknown>>;
  /** The Markdown after the frontmatter: what `/plugin:command args` expands into. */
  readonly body: string;
}

/**
 * `agents/<file>.md`: a subagent definition as @thinktank/subagents reads it (its name is the
 * frontmatter `name`, else the file name; `file` relative to the plugin root), and its plugin.
 */
export interface PluginAgent extends ParsedAgent {
  readonly plugin: string;
}

/** One hook handler (`{ type: "command", command }`, `{ type: "prompt", prompt }`, ...), as written. */
export interface PluginHookHandler {
  readonly type: string;
  readonly [key: string]: unknown;
}

/** One matcher group of one event, and the file it came from. Hooks are listed, never executed. */
export interface PluginHook {
  readonly event: string;
  readonly matcher?: string;
  readonly handlers: readonly PluginHookHandler[];
  readonly file: string;
}

export type PluginServerTransport = "stdio" | "sse" | "http";

/** A server as the plugin declares it (`.mcp.json` or the manifest), placeholders as written. */
export interface PluginServerDefinition {
  /** The name inside the plugin (it joins the agent's servers as `<plugin>:<name>`). */
  readonly name: string;
  readonly file: string;
  readonly entry: Readonly<Record<string, unknown>>;
  /** From `type`, else `stdio` with a command, `http` with a url; undefined for a type we do not know. */
  readonly transport: PluginServerTransport | undefined;
  /** True when the entry has no `type` field and the transport was inferred. */
  readonly typeFieldAbsent: boolean;
}

/**
 * A skill of the plugin: every SKILL.md under a skills folder, as the skills loader finds them.
 * `nested` marks one below another skill's folder (zoom's meeting-sdk/web under meeting-sdk).
 */
export interface PluginSkill {
  readonly plugin: string;
  /** The frontmatter name (may differ from the folder and may contain `/`), else the folder name. */
  readonly name: string;
  /** `plugin:<plugin>:<name>`. */
  readonly identity: string;
  readonly dir: string;
  readonly file: string;
  readonly description: string;
  /** False only when the frontmatter says `user-invocable: false`. */
  readonly userInvocable: boolean;
  readonly argumentHint?: string;
  readonly allowedTools?: readonly string[];
  /** True when the skill sits inside another skill's folder. */
  readonly nested: boolean;
  /** For a nested skill: the folder (relative) of the skill around it. */
  readonly parentDir?: string;
  readonly frontmatter: Readonly<Record<string, unknown>>;
  readonly body: string;
}

/** A plugin read from its folder: manifest, components, and what was found wrong. */
export interface LoadedPlugin {
  readonly name: string;
  readonly root: string;
  readonly manifest: PluginManifest;
  /** "file" when `.claude-plugin/plugin.json` exists, "folder" when the name came from the folder. */
  readonly manifestSource: "file" | "folder";
  readonly skills: readonly PluginSkill[];
  readonly commands: readonly PluginCommand[];
  readonly agents: readonly PluginAgent[];
  readonly hooks: readonly PluginHook[];
  readonly servers: readonly PluginServerDefinition[];
  /** The skill folders (relative), one skill source each for the skills loader. */
  readonly skillRoots: readonly string[];
  /** The skill folders that are themselves one skill (a manifest `skills` path naming one skill folder). */
  readonly singleSkillRoots: readonly string[];
  readonly problems: readonly PluginProblem[];
}

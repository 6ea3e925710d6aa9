/** Where an agent definition comes from; the first part of its identity. */
export type AgentSource = "builtin" | "plugin" | "custom" | "user";

/**
 * One sub-agent as every caller sees it: a Claude Code agent file (`agents/<name>.md`: frontmatter
 * `name`, `description`, `tools`, `model`; the body is the sub-agent's system prompt) or a built-in.
 * Identities: `builtin:general-purpose`, `plugin:<plugin>:<name>`, `custom:<name>` (the project's
 * `agents/custom`), `user:<name>` (a user's own). A bare name resolves when it is unique.
 */
export interface AgentDefinition {
  readonly identity: string;
  readonly name: string;
  readonly source: AgentSource;
  /** The plugin it comes from (source `plugin`). */
  readonly plugin?: string;
  /** When to use it: what the lead reads to choose it. */
  readonly description: string;
  /** `tools` as written, split like `allowed-tools` (`Read`, `Bash(git:*)`, `mcp__server__tool`); undefined: the lead's tools. */
  readonly tools?: readonly string[];
  /** `model` as written (`sonnet`, `opus`, `haiku`, `inherit`, or a configured model name); undefined: the lead's. */
  readonly model?: string;
  /** The agent file (absolute); undefined for built-ins. Its body is read when the agent runs (`readAgentPrompt`). */
  readonly file?: string;
  /** What applies to the viewer (their overlay over the administrator's default). */
  readonly enabled: boolean;
  /** The administrator's default. */
  readonly defaultEnabled: boolean;
  /** Set when the agent is switched off as a whole (its plugin is disabled or has errors): no overlay turns it on. */
  readonly disabledReason?: string;
  /** The frontmatter as written (unknown keys kept). */
  readonly frontmatter: Readonly<Record<string, unknown>>;
}

/**
 * One agent file as read (`parseAgent`): what every source shares before it gets an identity.
 * `packages/plugins` keeps these for its plugins' `agents/*.md` (its PluginAgent adds `plugin`).
 */
export interface ParsedAgent {
  /** The frontmatter `name`, else the file's name without `.md`. */
  readonly name: string;
  /** The file, relative to its folder (or the plugin's root), with `/`. */
  readonly file: string;
  /** The frontmatter `description`, else the body's first paragraph. */
  readonly description: string;
  readonly tools?: readonly string[];
  readonly model?: string;
  readonly frontmatter: Readonly<Record<string, unknown>>;
}

/** A problem found while reading agent files (a file that could not be read is left out with it). */
export interface AgentProblem {
  readonly severity: "error" | "warning";
  /** The file, relative to its source folder (or the plugin's root). */
  readonly file: string;
  readonly message: string;
  /** A warning for what Claude Code loads but a strict reading refuses (YAML read line by line, no description): a strict plugin install refuses it. */
  readonly lenient?: true;
  /** The line in the file, when known. */
  readonly line?: number;
}

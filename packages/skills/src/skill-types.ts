/**
 * Where a skill comes from: shipped (`public`), installed by an administrator (`custom`), installed
 * by one user for themselves (`user`: only that user sees it), or from an enabled plugin.
 */
export type SkillCategory = "public" | "custom" | "user" | `plugin:${string}`;

/**
 * One folder the loader searches for SKILL.md files (nested folders included, dot-folders
 * skipped). The plugins package adds one source per enabled plugin:
 * `{ category: "plugin:<plugin>", root: "<plugin>/skills", containerPrefix: "plugins/<plugin>" }`.
 */
export interface SkillSource {
  readonly category: SkillCategory;
  /** Absolute path of the folder to search. */
  readonly root: string;
  /** Where the source appears under the container path: "public", "custom", "plugins/<plugin>". */
  readonly containerPrefix: string;
  /**
   * Set when the source is listed but switched off as a whole (its plugin is disabled): its
   * skills load, show `enabled: false` with this reason whatever their own settings say, and
   * never reach the prompt. @default undefined (the skills' own settings apply)
   */
  readonly disabledReason?: string;
  /**
   * The source's own trust (a plugin's `plugins.<name>.trusted` in extensions_config.json): its
   * skills are trusted unless their own setting says `trusted: false`. @default false
   */
  readonly trusted?: boolean;
  /**
   * The source's scripts are approved for every thread (a plugin's `plugins.<name>.scripts_approved`):
   * its skills' script tools run without asking unless their own setting says otherwise. @default false
   */
  readonly scriptsApproved?: boolean;
  /**
   * The root folder is itself one skill (its SKILL.md at the top, relative path ""): a plugin
   * manifest's `skills` path naming one skill folder, as Claude Code accepts. @default false
   */
  readonly single?: boolean;
}

/** A skill as read from its SKILL.md, before enablement is applied. */
export interface ParsedSkill {
  /** `<category>:<name>`: the key for enablement and lookups. */
  readonly identity: string;
  readonly name: string;
  /** Trimmed; multi-line block scalars keep their inner line breaks. */
  readonly description: string;
  readonly category: SkillCategory;
  /** Absolute folder of the skill and its SKILL.md. */
  readonly dir: string;
  readonly file: string;
  /** Folder path inside its source, '/'-separated ("pdf", "meeting-sdk/web"). */
  readonly relativePath: string;
  /** Virtual folder and SKILL.md the model sees: "/mnt/skills/public/pdf", ".../SKILL.md". */
  readonly containerDir: string;
  readonly containerPath: string;
  readonly license: string | undefined;
  readonly compatibility: string | undefined;
  /** `allowed-tools` as a list, whether written space- or comma-separated or as a YAML list. */
  readonly allowedTools: readonly string[];
  readonly metadata: Readonly<Record<string, string>>;
  readonly argumentHint: string | undefined;
  /** `user-invocable` @default true */
  readonly userInvocable: boolean;
  /** `disable-model-invocation`: the skill is left out of <available_skills>. @default false */
  readonly disableModelInvocation: boolean;
  readonly whenToUse: string | undefined;
  readonly model: string | undefined;
  /** Every frontmatter field exactly as parsed, known or not. */
  readonly frontmatter: Readonly<Record<string, unknown>>;
  /** The body's first paragraph and headings as plain text, bounded (what skill search reads of the body; see skillOutline). */
  readonly outline?: string;
  /** The start of the body as plain text without code, bounded (skill search's `body` field; see skillBodyText). */
  readonly bodyText?: string;
  /** Spec violations that did not stop the skill from loading. */
  readonly warnings: readonly string[];
}

export interface Skill extends ParsedSkill {
  readonly enabled: boolean;
  /** Why the skill is off regardless of its own setting (its source's `disabledReason`); absent otherwise. */
  readonly disabledReason?: string;
  /**
   * Whether the code the skill brings (its tools.json script tools) is trusted: always for
   * `public` skills (the project's own); for custom and plugin skills only when
   * extensions_config.json says `trusted: true` for the skill, or for its plugin. An untrusted
   * skill's scripts run in the sandbox.
   */
  readonly trusted: boolean;
  /**
   * An administrator approved the skill's script tools for every thread (`scripts_approved: true`
   * on the skill's or its plugin's entry): they run without asking first.
   */
  readonly scriptsApproved: boolean;
  /**
   * In one user's view (UserSkillViews): whether the skill is on for users who made no choice of
   * their own (the administrator's default). Absent: the same as `enabled`.
   */
  readonly defaultEnabled?: boolean;
}

export type SkillProblemReason =
  | "invalid-frontmatter"
  | "missing-description"
  | "unreadable"
  | "symlink"
  | "misplaced"
  | "duplicate"
  | "ambiguous-setting";

/** Why a SKILL.md was skipped, or a setting could not be applied. Never dropped silently. */
export interface SkillProblem {
  readonly reason: SkillProblemReason;
  readonly message: string;
  readonly category?: SkillCategory;
  readonly file?: string;
  readonly identity?: string;
  /** 1-based position of a YAML error in SKILL.md. */
  readonly line?: number;
  readonly column?: number;
}

/**
 * The part of extensions_config.json skills read: `skills` keyed by identity or bare name (the
 * administrator's defaults), and `users.<id>.skills` keyed by identity (each user's overlay).
 */
export interface SkillSettingsDocument {
  readonly skills?: Readonly<Record<string, unknown>>;
  readonly users?: Readonly<Record<string, unknown>>;
}

import type { Skill } from "@thinktank/skills";

/** Something a user can run: a plugin command, or a user-invocable skill (a plugin's, or a public or custom one). */
export interface SlashCommandEntry {
  readonly kind: "command" | "skill";
  readonly name: string;
  /** `/<plugin>:<name>` for plugin commands and skills, `/<name>` for public and custom skills (a name with spaces in kebab case). */
  readonly invocation: string;
  readonly description: string;
  readonly argumentHint?: string;
  /** The plugin it comes from; none for a public or custom skill. */
  readonly plugin?: string;
  readonly allowedTools?: readonly string[];
  readonly model?: string;
  /** The file a plugin entry comes from, relative to the plugin root. */
  readonly file?: string;
  /** For a skill: its identity (`public:notes`, `plugin:sales:call-prep`). */
  readonly identity?: string;
  /** The body as the plugin was loaded with; a public or custom skill's is read from its SKILL.md when invoked. */
  readonly body?: string;
  /** The skill in the skills snapshot, for a skill entry: its expansion names its SKILL.md and folder. */
  readonly skill?: Skill;
}

import { scriptToolListingSchema } from "./context/list-script-tools.js";
import type { Skill } from "./skill-types.js";

/** A skill as the gateway and `thinktank skills list --json` show it (snake_case, like every route). */
export interface SkillJson {
  readonly identity: string;
  readonly name: string;
  readonly category: string;
  readonly description: string;
  readonly enabled: boolean;
  /** Whether it is on for users who made no choice of their own (the administrator's default); equals `enabled` outside a user's view. */
  readonly default_enabled: boolean;
  /** Why the skill is off whatever its own setting says (e.g. "the plugin 'sales' is disabled"), else null. */
  readonly disabled_reason: string | null;
  /** Whether the code the skill brings runs as trusted code (public skills always; see Skill.trusted). */
  readonly trusted: boolean;
  /** Its script tools run without asking first in every thread (an administrator approved them). */
  readonly scripts_approved: boolean;
  /** The virtual SKILL.md path the model reads. */
  readonly location: string;
  /** Folder inside its source ("pdf", "meeting-sdk/web"). */
  readonly relative_path: string;
  readonly license: string | null;
  readonly compatibility: string | null;
  readonly allowed_tools: readonly string[];
  readonly metadata: Readonly<Record<string, string>>;
  readonly argument_hint: string | null;
  readonly user_invocable: boolean;
  readonly disable_model_invocation: boolean;
  readonly when_to_use: string | null;
  readonly model: string | null;
  /** Every frontmatter field as written. */
  readonly frontmatter: Readonly<Record<string, unknown>>;
  readonly warnings: readonly string[];
}

/** A skill in a list: everything but the raw frontmatter (GET /api/skills/:name has it). */
export type SkillSummaryJson = Omit<SkillJson, "frontmatter">;

export function toSkillSummaryJson(skill: Skill): SkillSummaryJson {
  const { frontmatter: _frontmatter, ...summary } = toSkillJson(skill);
  return summary;
}

export function toSkillJson(skill: Skill): SkillJson {
  return {
    identity: skill.identity,
    name: skill.name,
    category: skill.category,
    description: skill.description,
    enabled: skill.enabled,
    default_enabled: skill.defaultEnabled ?? skill.enabled,
    disabled_reason: skill.disabledReason ?? null,
    trusted: skill.trusted,
    scripts_approved: skill.scriptsApproved,
    location: skill.containerPath,
    relative_path: skill.relativePath,
    license: skill.license ?? null,
    compatibility: skill.compatibility ?? null,
    allowed_tools: skill.allowedTools,
    metadata: skill.metadata,
    argument_hint: skill.argumentHint ?? null,
    user_invocable: skill.userInvocable,
    disable_model_invocation: skill.disableModelInvocation,
    when_to_use: skill.whenToUse ?? null,
    model: skill.model ?? null,
    frontmatter: skill.frontmatter,
    warnings: skill.warnings,
  };
}

const nullableString = { type: ["string", "null"] } as const;

/** JSON Schema of SkillJson, for route responses and the OpenAPI document. */
export const skillJsonSchema = {
  type: "object",
  required: ["identity", "name", "category", "description", "enabled", "default_enabled", "trusted", "scripts_approved", "location", "relative_path", "allowed_tools", "metadata", "frontmatter", "warnings"],
  properties: {
    identity: { type: "string", description: "`<category>:<name>`, the key in extensions_config.json `skills` (and in a user's `users.<id>.skills`)" },
    name: { type: "string" },
    category: { type: "string", description: "public, custom, user (the caller's own skill) or plugin:<plugin>" },
    description: { type: "string" },
    enabled: { type: "boolean", description: "whether it is on for the caller: their own choice, else the administrator's default" },
    default_enabled: { type: "boolean", description: "the administrator's default, which applies to users who made no choice (a user's own skill: true)" },
    disabled_reason: { type: ["string", "null"], description: "why the skill is off whatever its own setting says (its plugin is disabled or has errors); null otherwise" },
    trusted: {
      type: "boolean",
      description:
        "whether its script tools run as trusted code: public skills always; custom and plugin skills when extensions_config.json says trusted: true for the skill or its plugin (install with trusted, or PUT). Untrusted code runs in the sandbox",
    },
    scripts_approved: { type: "boolean", description: "an administrator approved its script tools for every thread: they run without asking first (`scripts_approved` on the skill's or its plugin's entry)" },
    location: { type: "string", description: "virtual path of SKILL.md, e.g. /mnt/skills/public/pdf/SKILL.md" },
    relative_path: { type: "string" },
    license: nullableString,
    compatibility: nullableString,
    allowed_tools: { type: "array", items: { type: "string" } },
    metadata: { type: "object", additionalProperties: { type: "string" } },
    argument_hint: nullableString,
    user_invocable: { type: "boolean" },
    disable_model_invocation: { type: "boolean" },
    when_to_use: nullableString,
    model: nullableString,
    frontmatter: { type: "object", additionalProperties: true },
    warnings: { type: "array", items: { type: "string" } },
  },
} as const;

/**
 * JSON Schema of one skill with what it brings (GET /api/skills/:name, the install answer): a
 * SkillJson plus `script_tools`, each of its tools.json script tools with where and how it would run.
 */
export const skillDetailJsonSchema = {
  type: "object",
  required: [...skillJsonSchema.required, "script_tools"],
  properties: {
    ...skillJsonSchema.properties,
    script_tools: { type: "array", items: scriptToolListingSchema, description: "every script tool of its tools.json: where it runs (trusted on the host, confined; untrusted in the sandbox), whether it asks first, and whether it can run here" },
  },
} as const;

/** JSON Schema of SkillSummaryJson (list items). */
export const skillSummaryJsonSchema = {
  type: "object",
  required: skillJsonSchema.required.filter((key) => key !== "frontmatter"),
  properties: Object.fromEntries(Object.entries(skillJsonSchema.properties).filter(([key]) => key !== "frontmatter")),
} as const;

/** JSON Schema of SkillProblem. */
export const skillProblemJsonSchema = {
  type: "object",
  required: ["reason", "message"],
  properties: {
    reason: { type: "string", enum: ["invalid-frontmatter", "missing-description", "unreadable", "symlink", "misplaced", "duplicate", "ambiguous-setting"] },
    message: { type: "string" },
    category: { type: "string" },
    file: { type: "string" },
    identity: { type: "string" },
    line: { type: "integer" },
    column: { type: "integer" },
  },
} as const;


import type { ParsedSkill, Skill, SkillProblem, SkillSettingsDocument, SkillSource } from "./skill-types.js";

/** What a skill takes from its source: a disabled plugin's reason, the plugin's trust and approval. */
export type SkillSourceSettings = Pick<SkillSource, "disabledReason" | "trusted" | "scriptsApproved">;

export interface ApplySkillSettingsOptions {
  /**
   * The settings of the skill's source (its plugin's), or undefined. A `disabledReason` switches
   * the skill off whatever its setting says, and such skills count for nothing when a bare-name
   * key is matched, so a disabled plugin's skill never makes a setting ambiguous for the skills
   * in use. `trusted` and `scriptsApproved` apply unless the skill's own setting says otherwise.
   * @default () => undefined
   */
  readonly source?: (skill: ParsedSkill) => SkillSourceSettings | undefined;
}

/** The fields of one `skills` entry, each only when it is a boolean. */
interface SkillSetting {
  readonly enabled?: boolean;
  readonly trusted?: boolean;
  readonly scriptsApproved?: boolean;
}

const settingFields = [
  ["enabled", "enabled"],
  ["trusted", "trusted"],
  ["scripts_approved", "scriptsApproved"],
] as const;

/** Reads one `skills` entry: `true`/`false` is `{ enabled }`; an object's boolean fields; anything else is a problem. */
function readSetting(key: string, setting: unknown, problems: SkillProblem[]): SkillSetting | undefined {
  if (typeof setting === "boolean") return { enabled: setting };
  if (!setting || typeof setting !== "object" || Array.isArray(setting)) {
    problems.push({ reason: "ambiguous-setting", identity: key, message: `extensions_config.json skills["${key}"] must be { "enabled": true | false }; ignored` });
    return undefined;
  }
  const read: { -readonly [K in keyof SkillSetting]: boolean } = {};
  for (const [field, property] of settingFields) {
    const value = (setting as Record<string, unknown>)[field];
    if (typeof value === "boolean") read[property] = value;
    else if (value !== undefined) problems.push({ reason: "ambiguous-setting", identity: key, message: `extensions_config.json skills["${key}"].${field} must be true or false; ignored` });
  }
  return read;
}

/**
 * Applies extensions_config.json `skills` to parsed skills. A key is an identity
 * (`public:pdf`, `plugin:sales:call-prep`) or a bare name (`pdf`); an identity wins over a
 * bare name, field by field, and a bare name that matches skills in two categories applies to
 * neither (that is reported: the same name in two places is two skills, never one switch).
 * A skill with no setting is enabled. `public` skills are always trusted (a `trusted: false`
 * for one is reported and ignored); custom and plugin skills are trusted only when their
 * setting, or their plugin's (the source), says `trusted: true`. `scripts_approved` likewise.
 * Malformed settings are reported and ignored.
 */
export function applySkillSettings(
  skills: readonly ParsedSkill[],
  document: SkillSettingsDocument,
  options: ApplySkillSettingsOptions = {},
): { skills: Skill[]; problems: SkillProblem[] } {
  const sourceOf = options.source ?? (() => undefined);
  const problems: SkillProblem[] = [];
  const settings = new Map<string, SkillSetting>();
  for (const [key, setting] of Object.entries(document.skills ?? {})) {
    const read = readSetting(key, setting, problems);
    if (read) settings.set(key, read);
  }
  const byName = new Map<string, ParsedSkill[]>();
  for (const skill of skills) {
    if (sourceOf(skill)?.disabledReason !== undefined) continue;
    const list = byName.get(skill.name);
    if (list) list.push(skill);
    else byName.set(skill.name, [skill]);
  }
  for (const [name, matches] of byName) {
    if (matches.length > 1 && settings.has(name)) {
      problems.push({
        reason: "ambiguous-setting",
        identity: name,
        message: `extensions_config.json skills["${name}"] matches ${matches.map((skill) => skill.identity).join(", ")}; key it by one of those identities. The bare name is ignored for them.`,
      });
    }
  }
  const result = skills.map((skill): Skill => {
    const source = sourceOf(skill);
    const own = settings.get(skill.identity);
    // A bare name applies when it names one skill in use; to a switched-off skill, when it names none in use.
    const inUse = byName.get(skill.name)?.length ?? 0;
    const bare = (source?.disabledReason === undefined ? inUse === 1 : inUse === 0) ? settings.get(skill.name) : undefined;
    const field = <K extends keyof SkillSetting>(name: K): boolean | undefined => own?.[name] ?? bare?.[name];
    const isPublic = skill.category === "public";
    if (isPublic && field("trusted") === false) {
      problems.push({ reason: "ambiguous-setting", identity: skill.identity, message: `extensions_config.json says trusted: false for ${skill.identity}; public skills are the project's own and always trusted, so it is ignored` });
    }
    const trust = {
      trusted: isPublic || (field("trusted") ?? source?.trusted ?? false),
      scriptsApproved: field("scriptsApproved") ?? source?.scriptsApproved ?? false,
    };
    if (source?.disabledReason !== undefined) return { ...skill, enabled: false, disabledReason: source.disabledReason, ...trust };
    return { ...skill, enabled: field("enabled") ?? true, ...trust };
  });
  return { skills: result, problems };
}

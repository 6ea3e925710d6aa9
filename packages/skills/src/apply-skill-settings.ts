import type { ParsedSkill, Skill, SkillProblem, SkillSettingsDocument } from "./skill-types.js";

export interface ApplySkillSettingsOptions {
  /**
   * Why a skill is off whatever its setting says (its plugin is disabled), or undefined. Such
   * skills count for nothing when a bare-name key is matched, so a disabled plugin's skill
   * never makes a setting ambiguous for the skills in use. @default () => undefined
   */
  readonly disabledReason?: (skill: ParsedSkill) => string | undefined;
}

/**
 * Applies extensions_config.json `skills` to parsed skills. A key is an identity
 * (`public:pdf`, `plugin:sales:call-prep`) or a bare name (`pdf`); an identity wins over a
 * bare name, and a bare name that matches skills in two categories applies to neither (that
 * is reported: the same name in two places is two skills, never one switch). A skill with no
 * setting is enabled. Malformed settings are reported and ignored.
 */
export function applySkillSettings(
  skills: readonly ParsedSkill[],
  document: SkillSettingsDocument,
  options: ApplySkillSettingsOptions = {},
): { skills: Skill[]; problems: SkillProblem[] } {
  const disabledReason = options.disabledReason ?? (() => undefined);
  const problems: SkillProblem[] = [];
  const settings = new Map<string, boolean>();
  for (const [key, setting] of Object.entries(document.skills ?? {})) {
    const enabled = setting && typeof setting === "object" ? (setting as { enabled?: unknown }).enabled : setting;
    if (typeof enabled === "boolean") settings.set(key, enabled);
    else if (enabled !== undefined || !setting || typeof setting !== "object") {
      problems.push({ reason: "ambiguous-setting", identity: key, message: `extensions_config.json skills["${key}"] must be { "enabled": true | false }; ignored` });
    }
  }
  const byName = new Map<string, ParsedSkill[]>();
  for (const skill of skills) {
    if (disabledReason(skill) !== undefined) continue;
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
    const reason = disabledReason(skill);
    if (reason !== undefined) return { ...skill, enabled: false, disabledReason: reason };
    const unambiguous = byName.get(skill.name)?.length === 1;
    const enabled = settings.get(skill.identity) ?? (unambiguous ? settings.get(skill.name) : undefined) ?? true;
    return { ...skill, enabled };
  });
  return { skills: result, problems };
}

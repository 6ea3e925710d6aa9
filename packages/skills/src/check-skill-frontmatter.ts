import type { ParsedSkill } from "./skill-types.js";
import { splitAllowedTools } from "./split-allowed-tools.js";

/** One way a SKILL.md frontmatter departs from the Agent Skills spec. */
export interface SkillFieldIssue {
  readonly field: string;
  readonly message: string;
}

/** The frontmatter fields the skills package reads, normalised (as they appear on a ParsedSkill). */
export type SkillFields = Pick<
  ParsedSkill,
  "name" | "license" | "compatibility" | "allowedTools" | "metadata" | "argumentHint" | "userInvocable" | "disableModelInvocation" | "whenToUse" | "model"
> & {
  /** Trimmed; undefined when missing, empty or not a string (the skill cannot load). */
  readonly description: string | undefined;
};

const namePattern = /^[a-z0-9-]+$/;
const maxNameLength = 64;
const maxDescriptionLength = 1024;
const maxCompatibilityLength = 500;

/**
 * Reads and checks a skill's frontmatter against the Agent Skills spec: name 1-64 characters
 * of [a-z0-9-] without leading, trailing or double hyphens and equal to the folder's name;
 * description 1-1024 characters without '<' or '>'; compatibility at most 500 characters;
 * metadata a map of strings; and the types of the other known fields. Returns every issue
 * (installs reject on any; the loader turns them into warnings) and the normalised fields.
 */
export function checkSkillFrontmatter(data: Readonly<Record<string, unknown>>, folderName: string): { fields: SkillFields; issues: SkillFieldIssue[] } {
  const issues: SkillFieldIssue[] = [];
  const issue = (field: string, message: string): void => {
    issues.push({ field, message });
  };

  let name = folderName;
  const rawName = data.name;
  if (rawName === undefined || rawName === null) issue("name", "name is required");
  else if (typeof rawName !== "string") issue("name", `name must be a string, got ${typeName(rawName)}`);
  else if (rawName.trim() === "") issue("name", "name must not be empty");
  else {
    name = rawName.trim();
    const length = [...name].length;
    if (length > maxNameLength) issue("name", `name must be at most ${maxNameLength} characters, got ${length}`);
    if (!namePattern.test(name)) issue("name", `name "${name}" may only contain lowercase letters a-z, digits and hyphens`);
    if (name.startsWith("-") || name.endsWith("-")) issue("name", `name "${name}" must not start or end with a hyphen`);
    if (name.includes("--")) issue("name", `name "${name}" must not contain two hyphens in a row`);
    if (name !== folderName) issue("name", `name "${name}" must equal its folder's name "${folderName}"`);
  }

  let description: string | undefined;
  const rawDescription = data.description;
  if (rawDescription === undefined || rawDescription === null) issue("description", "description is required");
  else if (typeof rawDescription !== "string") issue("description", `description must be a string, got ${typeName(rawDescription)}`);
  else if (rawDescription.trim() === "") issue("description", "description must not be empty");
  else {
    description = rawDescription.trim();
    const length = [...description].length;
    if (length > maxDescriptionLength) issue("description", `description must be at most ${maxDescriptionLength} characters, got ${length}`);
    if (/[<>]/.test(description)) issue("description", "description must not contain '<' or '>'");
  }

  const license = optionalString(data, "license", issue);
  const compatibility = optionalString(data, "compatibility", issue);
  if (compatibility !== undefined && [...compatibility].length > maxCompatibilityLength) {
    issue("compatibility", `compatibility must be at most ${maxCompatibilityLength} characters, got ${[...compatibility].length}`);
  }

  const rawTools = data["allowed-tools"];
  if (rawTools !== undefined && rawTools !== null && typeof rawTools !== "string" && !(Array.isArray(rawTools) && rawTools.every((t) => typeof t === "string"))) {
    issue("allowed-tools", `allowed-tools must be a string or a list of strings, got ${typeName(rawTools)}`);
  }

  const metadata: Record<string, string> = {};
  const rawMetadata = data.metadata;
  if (rawMetadata !== undefined && rawMetadata !== null) {
    if (typeof rawMetadata !== "object" || Array.isArray(rawMetadata)) issue("metadata", `metadata must be a map of strings, got ${typeName(rawMetadata)}`);
    else {
      for (const [key, value] of Object.entries(rawMetadata)) {
        if (typeof value === "string") metadata[key] = value;
        else {
          issue("metadata", `metadata.${key} must be a string, got ${typeName(value)}`);
          // Lenient readers still get `version: 1.0` as "1"; lists and maps are left out.
          if (typeof value === "number" || typeof value === "boolean") metadata[key] = String(value);
        }
      }
    }
  }

  let argumentHint: string | undefined;
  const rawHint = data["argument-hint"];
  if (typeof rawHint === "string") argumentHint = rawHint;
  else if (Array.isArray(rawHint) && rawHint.every((item) => typeof item === "string")) {
    // `argument-hint: [topic]` without quotes is a YAML list; keep what the author meant.
    argumentHint = rawHint.map((item) => `[${item}]`).join(" ");
    issue("argument-hint", "argument-hint is a YAML list; quote it to make it a string");
  } else if (rawHint !== undefined && rawHint !== null) issue("argument-hint", `argument-hint must be a string, got ${typeName(rawHint)}`);

  return {
    fields: {
      name,
      description,
      license,
      compatibility,
      allowedTools: splitAllowedTools(rawTools),
      metadata,
      argumentHint,
      userInvocable: optionalBoolean(data, "user-invocable", true, issue),
      disableModelInvocation: optionalBoolean(data, "disable-model-invocation", false, issue),
      whenToUse: optionalString(data, "when_to_use", issue),
      model: optionalString(data, "model", issue),
    },
    issues,
  };
}

function optionalString(data: Readonly<Record<string, unknown>>, field: string, issue: (field: string, message: string) => void): string | undefined {
  const value = data[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  issue(field, `${field} must be a string, got ${typeName(value)}`);
  return undefined;
}

function optionalBoolean(data: Readonly<Record<string, unknown>>, field: string, fallback: boolean, issue: (field: string, message: string) => void): boolean {
  const value = data[field];
  if (value === undefined || value === null) return fallback;
  if (typeof value === "boolean") return value;
  issue(field, `${field} must be true or false, got ${typeName(value)}`);
  return fallback;
}

function typeName(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (value === null) return "null";
  if (typeof value === "object") return "a map";
  return `${typeof value} ${JSON.stringify(value)}`;
}

import crypto from "node:crypto";
import fs from "node:fs";
import type { StructuredToolInterface } from "@langchain/core/tools";

/** The skill a script tool comes from. */
export interface ScriptToolSkill {
  /** `custom:words`, `plugin:sales:call-prep`. */
  readonly identity: string;
  readonly name: string;
  /** The plugin that brought the skill, for a plugin skill. */
  readonly plugin?: string;
}

/**
 * What approval needs to know about a script tool (a skill's tools.json script tool, or a tool
 * registered through /api/tools), and what the reviewer is shown. Never a secret: the env names,
 * not their values.
 */
export interface ScriptToolFacts {
  /** The skill it comes from; absent for a registered tool. */
  readonly skill?: ScriptToolSkill;
  readonly trusted: boolean;
  /** An administrator approved the skill's (or its plugin's) scripts for every thread (`scripts_approved`). */
  readonly scriptsApproved: boolean;
  readonly runtime: string;
  /** The host patterns it may reach (`network`); empty: none. */
  readonly network: readonly string[];
  /** The names of the environment variables it gets. */
  readonly env: readonly string[];
  /** The script file on the host: an approval is given to its content (scriptFingerprint). */
  readonly scriptPath?: string;
}

/** Where the facts ride on the LangChain tool (its `metadata`, which travels with the tool through every surface). */
const factsKey = "thinktank_script_tool";

/** Marks a LangChain tool as a script tool with these facts; returns the tool. */
export function markScriptTool<T extends StructuredToolInterface>(tool: T, facts: ScriptToolFacts): T {
  const carrier = tool as { metadata?: Record<string, unknown> };
  carrier.metadata = { ...carrier.metadata, [factsKey]: facts };
  return tool;
}

/** The facts a tool was marked with, or undefined for a tool that runs no script of its own. */
export function scriptToolFacts(tool: StructuredToolInterface | undefined): ScriptToolFacts | undefined {
  return (tool as { metadata?: Record<string, unknown> } | undefined)?.metadata?.[factsKey] as ScriptToolFacts | undefined;
}

/** The skill fields facts are made of (a Skill of @thinktank/skills fits). */
export interface ScriptToolSkillSource {
  readonly identity: string;
  readonly name: string;
  readonly category: string;
  readonly trusted?: boolean;
  readonly scriptsApproved?: boolean;
}

/** The script-tool definition fields facts are made of (ScopedScriptTool, ToolDefinition). */
export interface ScriptToolDefinitionSource {
  readonly runtime: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly network?: readonly string[];
  readonly scriptPath?: string;
}

/**
 * The facts of a skill's script tool. A skill is trusted only when it says so (`trusted: true`, set
 * from its origin and the administrator's settings by @thinktank/skills); one that does not say is
 * untrusted.
 */
export function skillScriptFacts(skill: ScriptToolSkillSource, definition: ScriptToolDefinitionSource): ScriptToolFacts {
  const plugin = skill.category.startsWith("plugin:") ? skill.category.slice("plugin:".length) : undefined;
  return {
    skill: { identity: skill.identity, name: skill.name, ...(plugin !== undefined ? { plugin } : {}) },
    trusted: skill.trusted === true,
    scriptsApproved: skill.scriptsApproved === true,
    ...definitionFacts(definition),
  };
}

/** The facts of a tool registered through /api/tools: trusted (a key holder registered it). */
export function registeredScriptFacts(definition: ScriptToolDefinitionSource): ScriptToolFacts {
  return { trusted: true, scriptsApproved: false, ...definitionFacts(definition) };
}

function definitionFacts(definition: ScriptToolDefinitionSource): Pick<ScriptToolFacts, "runtime" | "network" | "env" | "scriptPath"> {
  return {
    runtime: definition.runtime,
    network: [...(definition.network ?? [])],
    env: Object.keys(definition.env ?? {}).sort(),
    ...(definition.scriptPath !== undefined ? { scriptPath: definition.scriptPath } : {}),
  };
}

/**
 * What an approval is given to: the script's bytes and what it may use (runtime, network patterns,
 * environment names). A reinstalled skill whose script changed, or a tools.json that now asks for
 * more, asks again in threads that approved the old one. Read when a call is reviewed, not per
 * request. A script that cannot be read gets a fingerprint of its own (its call fails anyway).
 */
export function scriptFingerprint(facts: ScriptToolFacts): string {
  const hash = crypto.createHash("sha256").update(JSON.stringify([facts.runtime, facts.network, facts.env]));
  if (facts.scriptPath !== undefined) {
    try {
      hash.update(fs.readFileSync(facts.scriptPath));
    } catch {
      hash.update("\0unreadable");
    }
  }
  return hash.digest("hex").slice(0, 16);
}

/** Marks the script tools among a skill's scoped tools (by their tools.json entries); MCP references stay unmarked. */
export function markSkillScriptTools(tools: readonly StructuredToolInterface[], references: readonly ({ readonly kind: string; readonly name: string } & Partial<ScriptToolDefinitionSource>)[], skill: ScriptToolSkillSource): void {
  for (const reference of references) {
    if (reference.kind !== "script" || reference.runtime === undefined) continue;
    const tool = tools.find((candidate) => candidate.name === reference.name);
    if (tool) markScriptTool(tool, skillScriptFacts(skill, { ...reference, runtime: reference.runtime }));
  }
}

import { checkNameSegment, escapeHiddenCharacters, parseFrontmatter } from "@thinktank/core";
import { descriptionFromBody, splitAllowedTools } from "@thinktank/skills";
import type { AgentProblem, ParsedAgent } from "./agent-types.js";

/**
 * Frontmatter keys Claude Code gives meaning to in an agent file. Others are kept in
 * `frontmatter` with a warning (an author's typo, or a key from another tool).
 */
export const knownAgentKeys: ReadonlySet<string> = new Set([
  "name",
  "description",
  "tools",
  "disallowedTools",
  "model",
  "color",
  "maxTurns",
  "permissionMode",
  "skills",
  "mcpServers",
  "hooks",
  "memory",
  "background",
  "effort",
  "isolation",
  "initialPrompt",
]);

/** The names an agent may have: what an identity, a file name and `subagent_type` can all carry. */
const usableName = /^[\p{L}\p{N}][\p{L}\p{N}._-]{0,63}$/u;
/** Claude Code's own convention: lowercase letters, digits and hyphens. */
const conventionalName = /^[a-z0-9][a-z0-9-]*$/;

/** Why a file was refused, as an error code: its frontmatter passes a parsing bound, the file is too large, or it cannot be used as an agent. */
export type AgentRefusalCode = "FRONTMATTER_TOO_COMPLEX" | "FILE_TOO_LARGE" | "INVALID_AGENT";

export type ParseAgentResult = { ok: true; agent: ParsedAgent; warnings: AgentProblem[] } | { ok: false; problem: AgentProblem; code: AgentRefusalCode };

export interface ParseAgentWhere {
  /** The file relative to its folder or plugin root, with `/` (problems and `ParsedAgent.file` name it). */
  readonly file: string;
}

/**
 * Reads one agent file leniently, as Claude Code does: it loads, with warnings, whenever it can be
 * used. YAML a strict parser refuses is read line by line as `key: value`; a missing description
 * takes the body's first paragraph; a missing or unusable name takes the file's name; `tools` may
 * be a list or a string (commas or spaces; `Bash(git log:*)` stays whole); unknown keys are kept.
 * It is refused, with an error problem, only when it cannot be used: frontmatter past a parsing
 * bound or never closed, neither a name nor a file name usable as one, no description anywhere,
 * a `tools` or `model` of a shape nobody can read (its tools would otherwise widen to the lead's).
 */
export function parseAgent(text: string, where: ParseAgentWhere): ParseAgentResult {
  const { file } = where;
  const refuse = (message: string, line?: number, code: AgentRefusalCode = "INVALID_AGENT"): ParseAgentResult => ({ ok: false, code, problem: { severity: "error", file, message, ...(line ? { line } : {}) } });
  const parsed = parseFrontmatter(text, { lineWise: true });
  if (!parsed.ok) return refuse(parsed.problem.message, parsed.problem.line, parsed.problem.code === "FRONTMATTER_TOO_COMPLEX" ? "FRONTMATTER_TOO_COMPLEX" : "INVALID_AGENT");
  const warnings: AgentProblem[] = [];
  const warn = (message: string, lenient = false, line?: number): void => {
    warnings.push({ severity: "warning", file, message, ...(lenient ? { lenient: true as const } : {}), ...(line ? { line } : {}) });
  };
  if (parsed.recovered) warn(`${parsed.recovered.message}; read line by line as key: value, as Claude Code does`, true, parsed.recovered.line);
  const data = parsed.data;
  if (!parsed.hasFrontmatter) warn("has no YAML frontmatter ('---' block with name and description): the name is the file's and the description the body's first paragraph", true);

  const name = agentName(data.name, file, parsed.hasFrontmatter ? warn : () => undefined);
  if (name === undefined) return refuse(`neither the frontmatter name nor the file name is usable as an agent name (letters, digits, '.', '_' and '-', at most 64)`);

  let description = typeof data.description === "string" ? data.description.trim() : undefined;
  if (data.description !== undefined && typeof data.description !== "string") warn("description is not text; the body's first paragraph is used instead", true);
  if (!description) {
    description = descriptionFromBody(parsed.body);
    if (!description) return refuse("has no description (frontmatter 'description', or a paragraph in the body to take one from): the lead could not know when to use it");
    if (parsed.hasFrontmatter && data.description === undefined) warn("has no description in its frontmatter; the body's first paragraph is used, as Claude Code does", true);
  }

  let tools: string[] | undefined;
  if (data.tools !== undefined && data.tools !== null) {
    if (typeof data.tools !== "string" && !Array.isArray(data.tools)) return refuse("tools must be a list or a comma-separated string of tool names");
    if (Array.isArray(data.tools) && data.tools.some((item) => typeof item !== "string")) warn("tools has entries that are not text; they are ignored");
    tools = splitAllowedTools(data.tools);
    if (tools.length === 0) warn("tools is empty: the agent runs without tools");
  }

  let model: string | undefined;
  if (data.model !== undefined && data.model !== null) {
    if (typeof data.model !== "string" || data.model.trim() === "") return refuse("model must be text (sonnet, opus, haiku, inherit, or a configured model name)");
    model = data.model.trim();
  }

  for (const key of Object.keys(data)) {
    if (!knownAgentKeys.has(key)) warn(`'${escapeHiddenCharacters(key)}' is not a field of Claude Code agent files; kept as written`);
  }
  if (parsed.body.trim() === "") warn("has an empty body: the sub-agent's system prompt is only the environment section");

  return { ok: true, agent: { name, file, description, ...(tools ? { tools } : {}), ...(model ? { model } : {}), frontmatter: data }, warnings };
}

/** The agent's name: the frontmatter's when usable, else the file's; undefined when neither is. */
function agentName(value: unknown, file: string, warn: (message: string, lenient?: boolean) => void): string | undefined {
  const fromFile = (file.split("/").pop() ?? file).replace(/\.md$/i, "");
  const written = typeof value === "string" || typeof value === "number" ? String(value).trim() : undefined;
  if (written !== undefined && written !== "" && isUsableName(written)) {
    if (!conventionalName.test(written)) warn(`name '${written}' is not lowercase letters, digits and hyphens as Claude Code names agents; kept`);
    return written;
  }
  if (!isUsableName(fromFile)) return undefined;
  if (value === undefined || value === null) {
    warn(`has no name in its frontmatter; named '${fromFile}' after its file`, true);
  } else {
    warn(`name ${JSON.stringify(escapeHiddenCharacters(String(written ?? JSON.stringify(value))))} is not usable as an agent name; named '${fromFile}' after its file`, true);
  }
  return fromFile;
}

/** Letters, digits, '.', '_' and '-' (starting with a letter or digit), at most 64, and nothing that lies (core's name check). */
export function isUsableName(name: string): boolean {
  if (!usableName.test(name) || name.normalize("NFKC") !== name) return false;
  try {
    checkNameSegment(name, name);
    return true;
  } catch {
    return false;
  }
}

import type { AgentDefinition } from "./agent-types.js";

/** An agent as the gateway and `thinktank agents list --json` show it (snake_case, like every route). */
export interface AgentJson {
  readonly identity: string;
  readonly name: string;
  readonly source: AgentDefinition["source"];
  readonly plugin: string | null;
  readonly description: string;
  /** As written, split like allowed-tools; null: the lead's tools. */
  readonly tools: readonly string[] | null;
  readonly model: string | null;
  readonly enabled: boolean;
  readonly default_enabled: boolean;
  /** Why it is off whatever its own setting says (its plugin is disabled), else null. */
  readonly disabled_reason: string | null;
}

/** The detail (GET /api/agents/:identity, an install's answer): the system prompt and the frontmatter as written. */
export interface AgentDetailJson extends AgentJson {
  readonly prompt: string;
  readonly frontmatter: Readonly<Record<string, unknown>>;
}

export function toAgentJson(agent: AgentDefinition): AgentJson {
  return {
    identity: agent.identity,
    name: agent.name,
    source: agent.source,
    plugin: agent.plugin ?? null,
    description: agent.description,
    tools: agent.tools ?? null,
    model: agent.model ?? null,
    enabled: agent.enabled,
    default_enabled: agent.defaultEnabled,
    disabled_reason: agent.disabledReason ?? null,
  };
}

export function toAgentDetailJson(agent: AgentDefinition, prompt: string): AgentDetailJson {
  return { ...toAgentJson(agent), prompt, frontmatter: agent.frontmatter };
}

const nullableString = { type: ["string", "null"] } as const;

/** JSON Schema of AgentJson, for route responses and the OpenAPI document. */
export const agentJsonSchema = {
  type: "object",
  required: ["identity", "name", "source", "plugin", "description", "tools", "model", "enabled", "default_enabled", "disabled_reason"],
  properties: {
    identity: { type: "string", description: "`builtin:<name>`, `plugin:<plugin>:<name>`, `custom:<name>` or `user:<name>` (the caller's own): the key in extensions_config.json `agents` (and in a user's `users.<id>.agents`)" },
    name: { type: "string", description: "What `task` takes as `subagent_type` when no other agent has it" },
    source: { enum: ["builtin", "plugin", "custom", "user"] },
    plugin: { ...nullableString, description: "The plugin it comes from (source plugin)" },
    description: { type: "string", description: "When to use it (what the lead reads)" },
    tools: { type: ["array", "null"], items: { type: "string" }, description: "Its tools as written (`Read`, `Bash(git:*)`, `mcp__server__tool`); null: the lead's tools" },
    model: { ...nullableString, description: "sonnet, opus, haiku, inherit or a configured model name; null: the lead's" },
    enabled: { type: "boolean", description: "Whether it applies to the caller (their overlay over the default)" },
    default_enabled: { type: "boolean", description: "The administrator's default" },
    disabled_reason: { ...nullableString, description: "Why it is off whatever its setting says (its plugin is disabled or has errors)" },
  },
} as const;

/** JSON Schema of AgentDetailJson. */
export const agentDetailJsonSchema = {
  ...agentJsonSchema,
  required: [...agentJsonSchema.required, "prompt", "frontmatter"],
  properties: {
    ...agentJsonSchema.properties,
    prompt: { type: "string", description: "Its system prompt: the body of its file (or a built-in's)" },
    frontmatter: { type: "object", additionalProperties: true, description: "Every frontmatter field as written (unknown keys kept)" },
  },
} as const;

/** JSON Schema of an AgentProblem. */
export const agentProblemJsonSchema = {
  type: "object",
  required: ["severity", "file", "message"],
  properties: {
    severity: { enum: ["error", "warning"] },
    file: { type: "string", description: "The file, relative to the agents folder (custom/<file>.md) or the user's own folder" },
    message: { type: "string" },
    lenient: { type: "boolean" },
    line: { type: "integer" },
  },
} as const;

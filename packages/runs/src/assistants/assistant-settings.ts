import { ThinktankError } from "@thinktank/core";
import { entryMatches, type NameSelection } from "./name-selection.js";

/** The modes `code_execution.mode` takes (config.code_execution.mode's). */
const codeModes = ["direct", "code", "auto"] as const;

/**
 * What an assistant changes about its runs (packages/runs/README.md, "Assistants"), read from its
 * `config.configurable` and `context`. Every field is optional: an absent one leaves the run as
 * graph lead_agent makes it.
 */
export interface AssistantSettings {
  /** Standing instructions (a persona) added to the system prompt after the role. */
  readonly instructions?: string;
  /** A `models.providers` name the runs use instead of the default model. */
  readonly model?: string;
  /** The skills its runs see (listing, search, offers, slash commands, view_skill). */
  readonly skills?: NameSelection;
  /** The sub-agents its runs may delegate to (the listing and `task`). */
  readonly agents?: NameSelection;
  /** The MCP servers its runs reach (direct tools, list_servers, search_tools, execute_code). */
  readonly mcp_servers?: NameSelection;
  /** config.code_execution.mode for its runs. */
  readonly code_execution?: { readonly mode: (typeof codeModes)[number] };
  /** Long-term memory on or off for its runs; stored and checked now, acted on once memory exists. */
  readonly memory?: boolean;
}

/** What the catalog checks look at: everything the creator could name, as they see it. */
export interface AssistantCatalog {
  /** The configured model names (`models.providers` keys). */
  readonly models: readonly string[];
  /** Skill identities in the creator's view, enabled or not. */
  readonly skills: readonly string[];
  /** Sub-agent identities in the creator's view. */
  readonly agents: readonly string[];
  /** MCP server names the creator's runs could reach. */
  readonly mcpServers: readonly string[];
}

/** The longest `instructions`, in characters. */
export const maxInstructionsChars = 32_000;
/**
 * The most entries one allow or deny list holds, and the longest entry: each entry is matched
 * against every name the creator has (and every skill of a run's view), in time up to the entry's
 * length times the name's, so both stay small (globs cover more than a long list does).
 */
const maxEntries = 100;
const maxEntryChars = 100;

const settingKeys = new Set(["instructions", "model", "skills", "agents", "mcp_servers", "code_execution", "memory"]);

/** An INVALID_ASSISTANT error naming the field (422, `details.field`). */
export function invalidAssistant(field: string, message: string): ThinktankError {
  return new ThinktankError("INVALID_ASSISTANT", `${field}: ${message}`, { details: { field } });
}

/**
 * The settings of an assistant's `config` and `context` as the SDK sends them (both may carry
 * them: `config.configurable.<key>` or `context.<key>`; a key in both must agree). Anything else
 * in them, a key not known, a value of the wrong shape: INVALID_ASSISTANT naming the field.
 */
export function readAssistantSettings(input: { readonly config?: unknown; readonly context?: unknown }): AssistantSettings {
  const sources: { prefix: string; value: Record<string, unknown> }[] = [];
  if (input.config !== undefined && input.config !== null) {
    const config = objectAt("config", input.config);
    for (const key of Object.keys(config)) if (key !== "configurable") throw invalidAssistant(`config.${key}`, "an assistant's config holds only `configurable`");
    if (config.configurable !== undefined && config.configurable !== null) sources.push({ prefix: "config.configurable", value: objectAt("config.configurable", config.configurable) });
  }
  if (input.context !== undefined && input.context !== null) sources.push({ prefix: "context", value: objectAt("context", input.context) });
  const settings: Record<string, unknown> = {};
  const seen = new Map<string, string>();
  for (const { prefix, value } of sources) {
    for (const [key, raw] of Object.entries(value)) {
      const field = `${prefix}.${key}`;
      if (!settingKeys.has(key)) throw invalidAssistant(field, `unknown setting; an assistant takes ${[...settingKeys].join(", ")}`);
      if (raw === undefined || raw === null) continue;
      const parsed = readSetting(key, raw, field);
      const earlier = seen.get(key);
      if (earlier !== undefined && JSON.stringify(settings[key]) !== JSON.stringify(parsed)) throw invalidAssistant(field, `differs from ${earlier}; give it once`);
      seen.set(key, field);
      settings[key] = parsed;
    }
  }
  return settings as AssistantSettings;
}

/**
 * The checks that need the catalog: `model` is a configured model, and every entry of `skills`,
 * `agents` and `mcp_servers` names at least one thing the creator has (a typo is an error, not an
 * assistant that silently sees nothing). `fieldOf` gives the field a key came from.
 */
export function checkAssistantSettings(settings: AssistantSettings, catalog: AssistantCatalog, fieldOf: (key: keyof AssistantSettings) => string): void {
  if (settings.model !== undefined && !catalog.models.includes(settings.model)) {
    throw invalidAssistant(fieldOf("model"), `no model '${settings.model}' is configured (models.providers has ${catalog.models.length > 0 ? catalog.models.join(", ") : "none"})`);
  }
  const lists: [keyof AssistantSettings, readonly string[], string][] = [
    ["skills", catalog.skills, "skill"],
    ["agents", catalog.agents, "sub-agent"],
    ["mcp_servers", catalog.mcpServers, "MCP server"],
  ];
  for (const [key, known, noun] of lists) {
    const selection = settings[key] as NameSelection | undefined;
    if (!selection) continue;
    const entries = "allow" in selection ? selection.allow : selection.deny;
    entries.forEach((entry, index) => {
      if (!known.some((name) => entryMatches(entry, name))) throw invalidAssistant(`${fieldOf(key)}[${index}]`, `'${entry}' matches no ${noun}`);
    });
  }
}

/** Where each setting of `input` was given (`config.configurable.<key>` or `context.<key>`), for errors. */
export function settingFields(input: { readonly config?: unknown; readonly context?: unknown }): (key: keyof AssistantSettings) => string {
  const context = input.context && typeof input.context === "object" ? (input.context as Record<string, unknown>) : {};
  return (key) => (context[key] !== undefined && context[key] !== null ? `context.${key}` : `config.configurable.${key}`);
}

function readSetting(key: string, value: unknown, field: string): unknown {
  switch (key) {
    case "instructions":
      if (typeof value !== "string") throw invalidAssistant(field, "must be a string");
      if (value.length > maxInstructionsChars) throw invalidAssistant(field, `is longer than ${maxInstructionsChars} characters`);
      if (value.includes("\u0000")) throw invalidAssistant(field, "holds a NUL character");
      return value;
    case "model":
      if (typeof value !== "string" || value === "") throw invalidAssistant(field, "must be a configured model's name");
      return value;
    case "skills":
    case "agents":
    case "mcp_servers":
      return readSelection(value, field);
    case "code_execution": {
      const object = objectAt(field, value);
      for (const inner of Object.keys(object)) if (inner !== "mode") throw invalidAssistant(`${field}.${inner}`, "code_execution takes only `mode`");
      if (!codeModes.includes(object.mode as (typeof codeModes)[number])) throw invalidAssistant(`${field}.mode`, `must be one of ${codeModes.join(", ")}`);
      return { mode: object.mode };
    }
    default: {
      // memory
      if (typeof value === "boolean") return value;
      if (value === "on" || value === "off") return value === "on";
      throw invalidAssistant(field, 'must be true, false, "on" or "off"');
    }
  }
}

/** An allow list (`[...]` or `{ allow: [...] }`) or a deny list (`{ deny: [...] }`). */
function readSelection(value: unknown, field: string): NameSelection {
  if (Array.isArray(value)) return { allow: readEntries(value, field) };
  const object = objectAt(field, value);
  const keys = Object.keys(object);
  if (keys.length !== 1 || (keys[0] !== "allow" && keys[0] !== "deny")) throw invalidAssistant(field, "must be a list of names (an allow list), { allow: [...] } or { deny: [...] }");
  const key = keys[0] as "allow" | "deny";
  if (!Array.isArray(object[key])) throw invalidAssistant(`${field}.${key}`, "must be a list of names or globs");
  const entries = readEntries(object[key] as unknown[], `${field}.${key}`);
  return key === "allow" ? { allow: entries } : { deny: entries };
}

function readEntries(values: readonly unknown[], field: string): string[] {
  if (values.length > maxEntries) throw invalidAssistant(field, `holds more than ${maxEntries} entries`);
  return values.map((entry, index) => {
    if (typeof entry !== "string" || entry.trim() === "") throw invalidAssistant(`${field}[${index}]`, "must be a non-empty name or glob");
    if (entry.length > maxEntryChars) throw invalidAssistant(`${field}[${index}]`, `is longer than ${maxEntryChars} characters`);
    if (/[\u0000-\u001f\u007f\s]/.test(entry)) throw invalidAssistant(`${field}[${index}]`, "holds whitespace or a control character");
    return entry;
  });
}

function objectAt(field: string, value: unknown): Record<string, unknown> {
  if (!value || typeof value !== "object" || Array.isArray(value)) throw invalidAssistant(field, "must be an object");
  return value as Record<string, unknown>;
}

const selectionSchema = {
  description: "An allow list (a list, or { allow: [...] }) or a deny list ({ deny: [...] }) of identities or globs (`*`, `?`); an entry without `:` also matches an identity's last part.",
  oneOf: [
    { type: "array", items: { type: "string" }, maxItems: maxEntries },
    { type: "object", properties: { allow: { type: "array", items: { type: "string" } } }, required: ["allow"], additionalProperties: false },
    { type: "object", properties: { deny: { type: "array", items: { type: "string" } } }, required: ["deny"], additionalProperties: false },
  ],
};

/** The settings as a JSON Schema: what GET /assistants/:id/schemas answers as config_schema and context_schema. */
export const assistantSettingsJsonSchema = {
  title: "AssistantSettings",
  type: "object",
  additionalProperties: false,
  properties: {
    instructions: { type: "string", maxLength: maxInstructionsChars, description: "Standing instructions (a persona) added to the system prompt after the role." },
    model: { type: "string", description: "A configured model's name (models.providers)." },
    skills: { ...selectionSchema, description: `Skills the runs see, e.g. ["public:pdf", "plugin:sales:*"]. ${selectionSchema.description}` },
    agents: { ...selectionSchema, description: `Sub-agents the runs may delegate to. ${selectionSchema.description}` },
    mcp_servers: { ...selectionSchema, description: `MCP servers the runs reach. ${selectionSchema.description}` },
    code_execution: { type: "object", properties: { mode: { enum: [...codeModes] } }, required: ["mode"], additionalProperties: false },
    memory: { oneOf: [{ type: "boolean" }, { enum: ["on", "off"] }], description: "Long-term memory on or off; takes effect with memory (issue 30)." },
  },
} as const;

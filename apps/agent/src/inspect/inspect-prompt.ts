import path from "node:path";
import type { CodeExecutionMode, Config } from "@thinktank/core";
import { operatorId, ThinktankError } from "@thinktank/core";
import type { ToolDefinition } from "@thinktank/codemode";
import { countTokens, readCatalog, type ManagerLogger } from "@thinktank/mcp";
import { renderRelevantSkills, type SkillListingSetting } from "@thinktank/skills";
import { agentRequestProviders } from "../providers/agent-request-providers.js";
import { createCodeModeProvider } from "../providers/code-mode-provider.js";
import { assembleRequest } from "../request/prepare-request.js";
import type { RequestSurface } from "../request/request-context.js";
import { threadFolders } from "@thinktank/files";
import { AgentRuntime } from "../runtime/agent-runtime.js";
import { AssistantService, serverAccess, type AssistantChoice, type AssistantSettings } from "@thinktank/runs";
import { leadAssistant, leadAssistantId } from "../assistants/lead-assistant.js";
import { runAssistant } from "../assistants/run-assistant.js";
import { leadAgentGraphId } from "../graph/build-lead-agent-graph.js";
import { openAgentStore } from "../persistence/open-agent-store.js";
import { catalogSurfaceProvider } from "./catalog-surface-provider.js";
import { inspectAgentPrompt, type AgentPromptInspection } from "./inspect-agent-prompt.js";
import { toolDefinition } from "./tool-definition.js";

export interface InspectPromptOptions {
  /** Overrides config.code_execution.mode. @default the config's */
  readonly mode?: CodeExecutionMode;
  /** Overrides config.skills.listing. @default the config's */
  readonly listing?: SkillListingSetting;
  /** MCP tools from a folder of cached tool lists (the catalog format of docs/architecture.md) instead of the configured servers. */
  readonly catalogDir?: string;
  /** The prompt's date. @default new Date() */
  readonly now?: Date;
  /** Told about problems (skipped skills, servers that cannot start). @default dropped */
  readonly logger?: ManagerLogger;
  /** Whose run to inspect: a user's id shows their skills view (their overlay and own `user:` skills) and their MCP servers. @default "admin" (the operator), or the assistant's owner with `assistant` */
  readonly user?: string;
  /**
   * A run of this assistant (its id, or `lead_agent`), at its current version: its instructions,
   * and only its skills, commands, sub-agents and MCP servers (read from the threads database).
   * `mode` given wins over its code_execution.mode. @default lead_agent's
   */
  readonly assistant?: string;
}

/** What the model would be sent on the first call of a new thread, with token counts (o200k). */
export interface PromptInspection {
  /** The MCP surface: direct or code, and why (auto's token comparison). */
  readonly mode: "direct" | "code";
  readonly reason: string;
  /** How skills and slash commands are shown (skills.listing, auto resolved), and why. */
  readonly skillListing: { readonly mode: "full" | "compact"; readonly reason: string };
  readonly systemPrompt: string;
  /** In the order the model gets them. */
  readonly tools: readonly ToolDefinition[];
  /** What is added to the first user message for the model (compact listing: `<relevant_skills>`); "" when nothing is. */
  readonly messageContext: string;
  /** The assistant inspected (absent for lead_agent's): its id, the version, and the model it names. */
  readonly assistant?: { readonly assistant_id: string; readonly version: number; readonly name: string; readonly model?: string };
  readonly tokens: {
    readonly systemPrompt: number;
    /** The JSON of each definition, summed. */
    readonly tools: number;
    readonly messageContext: number;
    /** systemPrompt + tools + messageContext (the user's own text is not counted). */
    readonly total: number;
    readonly byTool: Readonly<Record<string, number>>;
  };
}

/** A new thread's request, built once: `inspect(message)` for as many first messages as wanted, then `close()`. */
export interface PromptInspector {
  inspect(message?: string): Promise<PromptInspection>;
  /** What the named agent (name or identity) would run with as a sub-agent of this run: its prompt, tools and model. */
  inspectAgent(nameOrIdentity: string): Promise<AgentPromptInspection>;
  close(): Promise<void>;
}

/**
 * `thinktank inspect prompt`: builds the request of a new thread exactly as the agent server does
 * (the same runtime, providers and assembly) and returns the system prompt, the tool definitions
 * and what the first user message would carry. Without a catalog the configured and plugin MCP
 * servers are asked (their disk cache first); the runtime is closed before returning.
 */
export async function inspectPrompt(config: Config, options: InspectPromptOptions & { readonly message?: string } = {}): Promise<PromptInspection> {
  const inspector = await openPromptInspector(config, options);
  try {
    return await inspector.inspect(options.message);
  } finally {
    await inspector.close();
  }
}

/**
 * The request of a new thread, assembled once (the system prompt and tools depend on no message),
 * and the message context of any first message on demand: what `--batch` uses to answer many
 * messages in one process. A message starting with a slash command is expanded first, as a run does.
 */
export async function openPromptInspector(config: Config, options: InspectPromptOptions = {}): Promise<PromptInspector> {
  let effective: Config = options.mode ? { ...config, code_execution: { ...config.code_execution, mode: options.mode } } : config;
  if (options.listing) effective = { ...effective, skills: { ...effective.skills, listing: options.listing } };
  const servers = options.catalogDir === undefined ? undefined : readCatalogFolder(options.catalogDir);
  const chosen = options.assistant === undefined ? undefined : await readAssistant(effective, options.assistant);
  const settings = chosen && options.mode ? { ...chosen.settings, code_execution: undefined } : chosen?.settings;
  const assistant = chosen && settings ? runAssistant(chosen.choice, settings) : undefined;
  const runtime = new AgentRuntime(effective, { watch: false, ...(options.logger ? { logger: options.logger } : {}) });
  try {
    await runtime.start();
    let choice: { mode: "direct" | "code"; reason: string } | undefined;
    const mcpSurface = servers ? catalogSurfaceProvider(runtime, servers, (description) => (choice = description)) : createCodeModeProvider(runtime, { onChoice: (chosen) => (choice = chosen) });
    const threadId = "new-thread";
    const ownerId = options.user ?? chosen?.owner ?? operatorId;
    const request = { config: effective, threadId, runId: "inspect", ownerId, now: options.now ?? new Date(), folders: threadFolders(effective, threadId), ...(assistant ? { assistant } : {}) };
    const surface = await assembleRequest(request, agentRequestProviders(runtime, { mcpSurface }));
    const { listing, agents } = await runtime.snapshotFor(request);
    const tools = surface.tools.map(toolDefinition);
    const byTool = Object.fromEntries(tools.map((definition) => [definition.name, countTokens(JSON.stringify(definition))]));
    const toolTokens = Object.values(byTool).reduce((sum, count) => sum + count, 0);
    const promptTokens = countTokens(surface.systemPrompt);
    const named = chosen ? { assistant: { ...chosen.choice, name: chosen.name, ...(settings?.model ? { model: settings.model } : {}) } } : {};
    const fixed = { mode: choice?.mode ?? "direct", reason: choice?.reason ?? "", skillListing: { mode: listing.mode, reason: listing.reason }, systemPrompt: surface.systemPrompt, tools, ...named } as const;
    return {
      async inspect(message) {
        const messageContext = message === undefined ? "" : await messageContextOf(surface, message);
        const contextTokens = countTokens(messageContext);
        return { ...fixed, messageContext, tokens: { systemPrompt: promptTokens, tools: toolTokens, messageContext: contextTokens, total: promptTokens + toolTokens + contextTokens, byTool } };
      },
      inspectAgent: (nameOrIdentity) => inspectAgentPrompt(surface, agents, nameOrIdentity, effective),
      close: () => runtime.close(),
    };
  } catch (error) {
    await runtime.close();
    throw error;
  }
}

/** What the graph's skill_context step adds to this first message (after a slash command's expansion). */
async function messageContextOf(surface: RequestSurface, message: string): Promise<string> {
  let text = message;
  if (surface.resolveCommand && message.trimStart().startsWith("/")) {
    const resolution = await surface.resolveCommand(message);
    // An unknown command is answered without a model call: nothing reaches the model.
    if (resolution.kind === "error") return "";
    if (resolution.kind === "expanded") text = resolution.text;
  }
  const relevant = await surface.skillContextFor?.(text);
  return relevant ? renderRelevantSkills(relevant) : "";
}

/** The assistant's current version, its settings and its owner, from the threads database (ASSISTANT_NOT_FOUND otherwise); undefined for lead_agent's. */
async function readAssistant(config: Config, id: string): Promise<{ choice: AssistantChoice; settings: AssistantSettings; owner: string; name: string } | undefined> {
  if (id === leadAgentGraphId || id === leadAssistantId) return undefined;
  const store = await openAgentStore(config);
  try {
    const assistants = new AssistantService({ store: store.assistants, builtIn: leadAssistant(new Date().toISOString()), clock: () => new Date() });
    const choice = await assistants.resolve(id, serverAccess);
    const stored = await store.assistants.get(choice.assistant_id);
    return { choice, settings: await assistants.settingsOf(choice), owner: stored?.owner_id ?? operatorId, name: stored?.name ?? id };
  } finally {
    await store.close();
  }
}

function readCatalogFolder(dir: string) {
  const { servers } = readCatalog(path.resolve(dir));
  if (servers.length === 0) throw new ThinktankError("NOT_FOUND", `no cached tool lists in ${dir}: expected one {"server", "tools"} JSON file per server`);
  return servers;
}

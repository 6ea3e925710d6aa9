import path from "node:path";
import type { CodeExecutionMode, Config } from "@thinktank/core";
import { ThinktankError } from "@thinktank/core";
import type { ToolDefinition } from "@thinktank/codemode";
import { countTokens, readCatalog, type ManagerLogger } from "@thinktank/mcp";
import { agentRequestProviders } from "../providers/agent-request-providers.js";
import { createCodeModeProvider } from "../providers/code-mode-provider.js";
import { assembleRequest } from "../request/prepare-request.js";
import { threadFolders } from "../request/thread-folders.js";
import { AgentRuntime } from "../runtime/agent-runtime.js";
import { catalogSurfaceProvider } from "./catalog-surface-provider.js";
import { toolDefinition } from "./tool-definition.js";

export interface InspectPromptOptions {
  /** Overrides config.code_execution.mode. @default the config's */
  readonly mode?: CodeExecutionMode;
  /** MCP tools from a folder of cached tool lists (DESIGN.md's catalog format) instead of the configured servers. */
  readonly catalogDir?: string;
  /** The prompt's date. @default new Date() */
  readonly now?: Date;
  /** Told about problems (skipped skills, servers that cannot start). @default dropped */
  readonly logger?: ManagerLogger;
}

/** What the model would be sent on the first call of a new thread, with token counts (o200k). */
export interface PromptInspection {
  /** The MCP surface: direct or code, and why (auto's token comparison). */
  readonly mode: "direct" | "code";
  readonly reason: string;
  readonly systemPrompt: string;
  /** In the order the model gets them. */
  readonly tools: readonly ToolDefinition[];
  readonly tokens: {
    readonly systemPrompt: number;
    /** The JSON of each definition, summed. */
    readonly tools: number;
    readonly total: number;
    readonly byTool: Readonly<Record<string, number>>;
  };
}

/**
 * `thinktank inspect prompt`: builds the request of a new thread exactly as the agent server does
 * (the same runtime, providers and assembly) and returns the system prompt and tool definitions.
 * Without a catalog the configured and plugin MCP servers are asked (their disk cache first);
 * the runtime is closed before returning.
 */
export async function inspectPrompt(config: Config, options: InspectPromptOptions = {}): Promise<PromptInspection> {
  const effective: Config = options.mode ? { ...config, code_execution: { ...config.code_execution, mode: options.mode } } : config;
  const servers = options.catalogDir === undefined ? undefined : readCatalogFolder(options.catalogDir);
  const runtime = new AgentRuntime(effective, { watch: false, ...(options.logger ? { logger: options.logger } : {}) });
  try {
    await runtime.start();
    let choice: { mode: "direct" | "code"; reason: string } | undefined;
    const mcpSurface = servers ? catalogSurfaceProvider(runtime, servers, (description) => (choice = description)) : createCodeModeProvider(runtime, { onChoice: (chosen) => (choice = chosen) });
    const threadId = "new-thread";
    const request = { config: effective, threadId, runId: "inspect", now: options.now ?? new Date(), folders: threadFolders(effective, threadId) };
    const surface = await assembleRequest(request, agentRequestProviders(runtime, { mcpSurface }));
    const tools = surface.tools.map(toolDefinition);
    const byTool = Object.fromEntries(tools.map((definition) => [definition.name, countTokens(JSON.stringify(definition))]));
    const toolTokens = Object.values(byTool).reduce((sum, count) => sum + count, 0);
    const promptTokens = countTokens(surface.systemPrompt);
    return {
      mode: choice?.mode ?? "direct",
      reason: choice?.reason ?? "",
      systemPrompt: surface.systemPrompt,
      tools,
      tokens: { systemPrompt: promptTokens, tools: toolTokens, total: promptTokens + toolTokens, byTool },
    };
  } finally {
    await runtime.close();
  }
}

function readCatalogFolder(dir: string) {
  const { servers } = readCatalog(path.resolve(dir));
  if (servers.length === 0) throw new ThinktankError("NOT_FOUND", `no cached tool lists in ${dir}: expected one {"server", "tools"} JSON file per server`);
  return servers;
}

import { createToolsRequestProvider } from "@thinktank/tools";
import { createRequestHumanInputTool } from "../graph/request-human-input-tool.js";
import type { RequestProvider } from "../request/request-context.js";
import type { AgentRuntime } from "../runtime/agent-runtime.js";
import { withRegisteredToolFacts } from "../tool-approval/registered-tool-facts.js";
import { createCodeModeProvider } from "./code-mode-provider.js";
import { createCommandsProvider } from "./commands-provider.js";
import { createHooksProvider } from "./hooks-provider.js";
import { createMemoryProvider } from "./memory-provider.js";
import { createSkillsProvider } from "./skills-provider.js";
import { createSubagentsProvider } from "./subagents-provider.js";
import { createUploadNoteProvider, type ThreadUploads } from "./upload-note-provider.js";
import { createUniversalToolsProvider } from "./universal-tools-provider.js";

export interface AgentRequestProvidersOptions {
  /** Providers after the default ones. @default [] */
  readonly extra?: readonly RequestProvider[];
  /** The MCP part of the surface. @default createCodeModeProvider(runtime) (`thinktank inspect prompt --catalog` passes one over a catalog folder) */
  readonly mcpSurface?: RequestProvider;
  /** The threads' uploads, for the note a new user message carries of the files uploaded before it (ThreadFiles). @default none (no upload note) */
  readonly uploads?: ThreadUploads;
}

/** request_human_input: a LangGraph interrupt (see createRequestHumanInputTool). */
export const humanInputProvider: RequestProvider = { name: "human-input", contribute: () => ({ tools: [createRequestHumanInputTool()] }) };

/**
 * The agent's request providers, in prompt and tool order: universal tools (files, bash), skills
 * (`<skill_system>`, view_skill, specialist contexts), slash commands, request_human_input, `task`
 * (sub-agents, when enabled and the run has any), the MCP surface (direct or code mode), the enabled plugins' hooks (no prompt or tools: the graph runs
 * them), the registered script tools and web_search (@thinktank/tools, when the runtime has them),
 * the upload note's source (with `uploads`), `memory` and the `<memory>` digest's source (when memory is on for the run), then `extra`. A name already taken keeps its first tool, so later
 * providers cannot replace earlier ones.
 */
export function agentRequestProviders(runtime: AgentRuntime, options: AgentRequestProvidersOptions = {}): RequestProvider[] {
  const mcpSurface = options.mcpSurface ?? createCodeModeProvider(runtime);
  const providers = [createUniversalToolsProvider(runtime), createSkillsProvider(runtime), createCommandsProvider(runtime), humanInputProvider, createSubagentsProvider(runtime), mcpSurface, createHooksProvider(runtime)];
  const tools = runtime.tools;
  if (tools) {
    const registered = createToolsRequestProvider({
      registry: tools.registry,
      executor: tools.executor,
      webSearch: tools.webSearch,
      onProblems: (problems) => runtime.logger.warn({ problems }, "registered tools left out: their entries in extensions_config.json are malformed"),
    });
    providers.push(withRegisteredToolFacts(registered, tools.registry));
  }
  if (options.uploads) providers.push(createUploadNoteProvider(options.uploads));
  providers.push(createMemoryProvider(runtime));
  return [...providers, ...(options.extra ?? [])];
}

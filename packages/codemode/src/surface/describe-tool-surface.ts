import type { CodeExecutionMode } from "@thinktank/core";
import { countTokens, modelToolNames, type CatalogServer } from "@thinktank/mcp";
import { codeExecutionPrompt } from "./code-execution-prompt.js";
import { codeModeToolSpecs, specDefinition, type CodeModeToolSettings, type ToolDefinition } from "./code-mode-tool-specs.js";

export interface DescribeToolSurfaceOptions extends CodeModeToolSettings {
  /** config.code_execution.mode */
  readonly mode: CodeExecutionMode;
  /** config.code_execution.auto_threshold_tokens */
  readonly autoThresholdTokens: number;
  /** config.code_execution.max_stdout_bytes (the prompt mentions it) */
  readonly maxStdoutBytes: number;
}

/** A prompt section a surface adds (ids and order as the agent's PromptSection). */
export interface SurfaceSection {
  readonly id: string;
  readonly text: string;
  readonly order: number;
}

/** What the model is sent for the MCP tools in one mode, and what it costs. */
export interface ToolSurfaceDescription {
  /** The mode chosen (auto resolved). */
  readonly mode: "direct" | "code";
  readonly reason: string;
  readonly definitions: readonly ToolDefinition[];
  readonly sections: readonly SurfaceSection[];
  /** o200k tokens: each definition's JSON, the sections, and their sum. */
  readonly tokens: { readonly definitions: number; readonly sections: number; readonly total: number };
  /** What each mode would cost for the same catalog (definitions + sections), for comparison. */
  readonly costs: { readonly direct: number; readonly code: number };
  /** The MCP tools behind the surface. */
  readonly toolCount: number;
}

/**
 * The tool surface for a catalog, without any live server: the definitions the model would get
 * (direct: every tool under its model-facing name; code: the three tools and the code-execution
 * section) with token counts. Auto picks code mode when the direct definitions cost more than
 * the threshold. `thinktank inspect prompt` and chooseToolSurface both use it.
 */
export function describeToolSurface(servers: readonly CatalogServer[], options: DescribeToolSurfaceOptions): ToolSurfaceDescription {
  const direct = directDefinitions(servers);
  const directTokens = definitionTokens(direct);
  const code = codeDefinitions(options);
  const codeSections = [codeSection(options)];
  const codeTokens = definitionTokens(code) + sectionTokens(codeSections);
  const toolCount = direct.length;
  let mode: "direct" | "code";
  let reason: string;
  if (options.mode === "auto") {
    mode = directTokens > options.autoThresholdTokens ? "code" : "direct";
    reason = `auto: ${toolCount} MCP tool definitions cost ${directTokens} tokens, ${mode === "code" ? "more" : "not more"} than auto_threshold_tokens (${options.autoThresholdTokens})`;
  } else {
    mode = options.mode;
    reason = `code_execution.mode is ${options.mode}`;
  }
  const definitions = mode === "code" ? code : direct;
  const sections = mode === "code" ? codeSections : [];
  const tokens = { definitions: mode === "code" ? definitionTokens(code) : directTokens, sections: sectionTokens(sections) };
  return { mode, reason, definitions, sections, tokens: { ...tokens, total: tokens.definitions + tokens.sections }, costs: { direct: directTokens, code: codeTokens }, toolCount };
}

/**
 * The surface of `shared` (a description of the shared catalog) with one user's own servers added:
 * their tools' definitions are counted on top of the shared ones (which are not counted again), so
 * auto mode weighs everything the user would be sent.
 */
export function describeWithOwnServers(shared: ToolSurfaceDescription, own: readonly CatalogServer[], options: DescribeToolSurfaceOptions): ToolSurfaceDescription {
  const ownDefinitions = directDefinitions(own);
  const directTokens = shared.costs.direct + definitionTokens(ownDefinitions);
  const toolCount = shared.toolCount + ownDefinitions.length;
  const mode = options.mode === "auto" ? (directTokens > options.autoThresholdTokens ? "code" : "direct") : options.mode;
  const reason =
    options.mode === "auto"
      ? `auto: ${toolCount} MCP tool definitions cost ${directTokens} tokens, ${mode === "code" ? "more" : "not more"} than auto_threshold_tokens (${options.autoThresholdTokens})`
      : shared.reason;
  const costs = { direct: directTokens, code: shared.costs.code };
  if (mode === "code") {
    const definitions = codeDefinitions(options);
    const sections = [codeSection(options)];
    const tokens = { definitions: definitionTokens(definitions), sections: sectionTokens(sections) };
    return { mode, reason, definitions, sections, tokens: { ...tokens, total: tokens.definitions + tokens.sections }, costs, toolCount };
  }
  // Direct for the user: the shared surface was direct too (it costs less), so its definitions are the shared tools'.
  const definitions = [...shared.definitions, ...ownDefinitions];
  return { mode, reason, definitions, sections: [], tokens: { definitions: directTokens, sections: 0, total: directTokens }, costs, toolCount };
}

/** Every MCP tool as a model API receives it in direct mode, under its model-facing name. */
export function directDefinitions(servers: readonly CatalogServer[]): ToolDefinition[] {
  const naming = modelToolNames(servers);
  const definitions: ToolDefinition[] = [];
  const taken = new Set<string>();
  for (const server of servers) {
    for (const tool of server.tools) {
      const name = naming.nameOf(server.server, tool.name);
      // A server that lists a name twice: the first definition counts (as the naming does).
      if (name === undefined || taken.has(name)) continue;
      taken.add(name);
      definitions.push({ name, description: tool.description ?? "", input_schema: tool.inputSchema });
    }
  }
  return definitions;
}

/** list_servers, search_tools and execute_code as a model API receives them. */
export function codeDefinitions(settings: CodeModeToolSettings): ToolDefinition[] {
  const specs = codeModeToolSpecs(settings);
  return [specDefinition(specs.listServers), specDefinition(specs.searchTools), specDefinition(specs.executeCode)];
}

/** The code-execution prompt section. */
export function codeSection(options: { readonly maxStdoutBytes: number }): SurfaceSection {
  return { id: "code_execution", text: codeExecutionPrompt(options), order: 30 };
}

/** o200k tokens of the definitions as sent: the JSON of each `{ name, description, input_schema }`. */
export function definitionTokens(definitions: readonly ToolDefinition[]): number {
  return definitions.reduce((sum, definition) => sum + countTokens(JSON.stringify(definition)), 0);
}

function sectionTokens(sections: readonly SurfaceSection[]): number {
  return sections.reduce((sum, section) => sum + countTokens(section.text), 0);
}

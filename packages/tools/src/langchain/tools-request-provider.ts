import type { StructuredToolInterface } from "@langchain/core/tools";
import type { WebSearch } from "../builtins/web-search/web-search.js";
import type { ToolExecutor } from "../execution/tool-executor.js";
import { ToolScheduler } from "../execution/tool-scheduler.js";
import type { ToolDefinition, ToolProblem } from "../registry/tool-definition.js";
import type { ToolRegistry } from "../registry/tool-registry.js";

/** What the provider reads about a run (the agent's RequestInfo fits). */
export interface ToolsRequestInfo {
  readonly threadId?: string;
  readonly runId?: string;
}

/** A part of the system prompt (the agent's PromptSection fits). */
export interface ToolsPromptSection {
  readonly id: string;
  readonly text: string;
  readonly order?: number;
}

export interface ToolsContribution {
  readonly sections: readonly ToolsPromptSection[];
  readonly tools: readonly StructuredToolInterface[];
}

/** The agent's RequestProvider shape: `{ name, contribute(info) }`. */
export interface ToolsRequestProvider {
  readonly name: string;
  contribute(info: ToolsRequestInfo): Promise<ToolsContribution>;
}

export interface ToolsRequestProviderOptions {
  readonly registry: ToolRegistry;
  readonly executor: ToolExecutor;
  /** The web_search built-in; offered only when a provider is configured. */
  readonly webSearch?: WebSearch;
  /** Adds a short prompt section on reading the tools' answers when any tool is registered. @default true */
  readonly promptHint?: boolean;
  /** Told (once per revision of the file) about registry entries left out as malformed. */
  readonly onProblems?: (problems: readonly ToolProblem[]) => void;
}

/**
 * The tools library's contribution to each run: every enabled registered tool and (when
 * configured) web_search, as LangChain tools answering the ToolResponse envelope. Registered
 * tools come from the registry's current snapshot, so a change made through the gateway shows
 * on the very next run. Each run gets its own ToolScheduler: within a turn, parallel_capable
 * tools run together and the others one at a time. (request_human_input is the agent's own tool,
 * and code_execution is codemode's execute_code; neither is repeated here.)
 */
export function createToolsRequestProvider(options: ToolsRequestProviderOptions): ToolsRequestProvider {
  let reportedRevision: string | undefined;
  return {
    name: "tools",
    async contribute(info) {
      const view = await options.registry.view();
      if (view.problems.length > 0 && reportedRevision !== view.etag) {
        reportedRevision = view.etag;
        options.onProblems?.(view.problems);
      }
      const scheduler = new ToolScheduler();
      const context = { source: "agent", ...(info.threadId ? { threadId: info.threadId } : {}), ...(info.runId ? { runId: info.runId } : {}) };
      const registered = [...view.tools.values()].filter((tool) => tool.enabled);
      // Loaded on first use: it brings LangChain, which the gateway (a user of this package) never needs.
      const { EnvelopeTool } = await import("./envelope-tool.js");
      const tools: StructuredToolInterface[] = registered.map(
        (tool) =>
          new EnvelopeTool({
            name: tool.name,
            description: tool.description,
            schema: tool.input_schema,
            run: (args, config) => scheduler.run(tool.parallel_capable, () => options.executor.invoke(tool.name, args, { ...context, ...(config?.signal ? { signal: config.signal } : {}) })),
          }),
      );
      const webSearch = options.webSearch;
      if (webSearch?.available) {
        tools.push(
          new EnvelopeTool({
            name: webSearch.name,
            description: webSearch.description,
            schema: webSearch.inputSchema,
            run: (args, config) => scheduler.run(true, () => webSearch.search(args, { ...context, ...(config?.signal ? { signal: config.signal } : {}) })),
          }),
        );
      }
      const sections = registered.length > 0 && options.promptHint !== false ? [{ id: "registered-tools", order: 60, text: promptHint(registered) }] : [];
      return { sections, tools };
    },
  };
}

function promptHint(tools: readonly ToolDefinition[]): string {
  return [
    `Registered tools (scripts on this server: ${tools.map((tool) => tool.name).join(", ")}) answer with JSON: {"status": "success", "data": ...} or {"status": "error", "error": {"code": ..., "message": ...}}.`,
    "On TOOL_INVALID_ARGUMENTS fix the arguments and call again; on TIMEOUT, TOOL_SCRIPT_FAILED or another error the tool itself failed: tell the user what happened instead of retrying in a loop.",
  ].join(" ");
}

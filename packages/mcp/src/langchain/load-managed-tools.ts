import { AsyncLocalStorage } from "node:async_hooks";
import type { DynamicStructuredTool } from "@langchain/core/tools";
import type { LoadMcpToolsOptions } from "@langchain/mcp-adapters";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { ReadResourceRequest } from "@modelcontextprotocol/sdk/types.js";
import { ThinktankError } from "@thinktank/core";
import type { McpManager } from "../manager/mcp-manager.js";
import type { InputRequiredHandler } from "../manager/modern-session.js";

export interface LoadManagedToolsOptions extends LoadMcpToolsOptions {
  /**
   * The name a LangChain tool gets (for instance the model-facing name from modelToolNames).
   * @default the adapters' naming: the MCP tool name, with prefixToolNameWithServerName / additionalToolNamePrefix
   */
  readonly toolName?: (server: string, tool: string) => string;
  /**
   * Re-list the server's tools live instead of using the last known list (live session or disk cache).
   * @default false
   */
  readonly fresh?: boolean;
  /**
   * Use only the last known list (live session or disk cache) and never connect: a server whose
   * tools are not known fails with SERVICE_UNAVAILABLE at once (loadAllManagedTools reports it).
   * For the request path, which must not wait for servers. @default false
   */
  readonly knownOnly?: boolean;
  /** Whose tools (McpManager's `user`): every call is made with their credentials. @default the operator */
  readonly user?: string;
  /**
   * Answers a 2026-07-28 tool's `input_required` rounds (McpManager's CallOptions.onInputRequired);
   * the agent asks the user with a LangGraph interrupt, as request_human_input does. @default none: such a call fails with MCP_INPUT_REQUIRED
   */
  readonly onInputRequired?: InputRequiredHandler;
}

/**
 * A server's MCP tools as LangChain tools for direct mode, built by @langchain/mcp-adapters over
 * the manager: every call goes through McpManager.callTool, so the shared session, retries,
 * restarts and timeouts apply, and no second connection is opened. A RunnableConfig `timeout`
 * or `signal` on an invocation is passed to the call. Each tool's `metadata.mcp` is
 * `{ server, tool }` (the MCP name, whatever the LangChain name).
 */
export async function loadManagedTools(manager: McpManager, server: string, options: LoadManagedToolsOptions = {}): Promise<DynamicStructuredTool[]> {
  const { toolName, fresh = false, knownOnly = false, user, onInputRequired: askFor, ...adapterOptions } = options;
  let listed: readonly { name: string }[] = [];
  // What the input handler throws (a LangGraph interrupt) must leave the tool as it is: the adapters
  // turn any error of a call into a ToolException, so it is held here and thrown again around them.
  const escapes = new AsyncLocalStorage<{ escaped?: unknown }>();
  const onInputRequired: InputRequiredHandler | undefined =
    askFor &&
    (async (requests, context) => {
      try {
        return await askFor(requests, context);
      } catch (error) {
        const holder = escapes.getStore();
        if (holder) holder.escaped = error;
        throw error;
      }
    });
  const client = {
    async listTools() {
      const known = fresh && !knownOnly ? undefined : manager.knownTools(server, user);
      if (known === undefined && knownOnly) {
        throw new ThinktankError("SERVICE_UNAVAILABLE", `the tools of MCP server '${server}' are not known yet (it has not connected, and no cached list matches its entry)`, { details: { server } });
      }
      listed = known ?? (await manager.listTools(server, user));
      // The adapters fill in missing `properties` in place: give them copies, not the manager's list.
      return { tools: structuredClone(listed) };
    },
    callTool(params: { name: string; arguments?: Record<string, unknown> }, _resultSchema?: unknown, requestOptions?: { timeout?: number; signal?: AbortSignal }) {
      return manager.callTool(server, params.name, params.arguments ?? {}, {
        ...(requestOptions?.timeout ? { timeoutMs: requestOptions.timeout } : {}),
        ...(requestOptions?.signal ? { signal: requestOptions.signal } : {}),
        ...(user !== undefined ? { user } : {}),
        ...(onInputRequired ? { onInputRequired } : {}),
      });
    },
    readResource(params: ReadResourceRequest["params"]) {
      return manager.readResource(server, params, user !== undefined ? { user } : {});
    },
  };
  // Loaded on first use: the adapters bring LangChain, which the gateway never needs (start-up time).
  const { loadMcpTools } = await import("@langchain/mcp-adapters");
  const tools = await loadMcpTools(server, client as unknown as Client, adapterOptions);
  // The adapters named each tool `<prefix><MCP name>`; map back to the MCP name, recorded in the
  // tool's metadata (`mcp: { server, tool }`: plugin hooks know it as mcp__<server>__<tool>), then rename.
  const prefix = `${adapterOptions.additionalToolNamePrefix ? `${adapterOptions.additionalToolNamePrefix}__` : ""}${adapterOptions.prefixToolNameWithServerName ? `${server}__` : ""}`;
  const originals = new Map(listed.map((tool) => [`${prefix}${tool.name}`, tool.name]));
  for (const tool of tools) {
    const call = tool.func;
    tool.func = (async (...args: Parameters<typeof call>) => {
      const holder: { escaped?: unknown } = {};
      try {
        return await escapes.run(holder, () => call(...args));
      } catch (error) {
        throw "escaped" in holder ? holder.escaped : error;
      }
    }) as typeof call;
    const mcpName = originals.get(tool.name) ?? tool.name;
    tool.metadata = { ...tool.metadata, mcp: { server, tool: mcpName } };
    if (toolName) tool.name = toolName(server, mcpName);
  }
  return tools;
}

/**
 * Every managed server's tools as LangChain tools. A server that cannot be reached is left out
 * and reported with its reason; it never hides the others.
 */
export async function loadAllManagedTools(
  manager: McpManager,
  options: LoadManagedToolsOptions & { readonly servers?: readonly string[] } = {},
): Promise<{ tools: DynamicStructuredTool[]; unavailable: { server: string; reason: string }[] }> {
  const { servers = manager.serverNames(options.user), ...toolOptions } = options;
  const tools: DynamicStructuredTool[] = [];
  const unavailable: { server: string; reason: string }[] = [];
  const results = await Promise.allSettled(servers.map((server) => loadManagedTools(manager, server, toolOptions)));
  for (const [index, result] of results.entries()) {
    if (result.status === "fulfilled") tools.push(...result.value);
    else unavailable.push({ server: servers[index] as string, reason: result.reason instanceof Error ? result.reason.message : String(result.reason) });
  }
  return { tools, unavailable };
}

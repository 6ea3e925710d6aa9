import type { CatalogTool, InputRequiredHandler } from "@thinktank/mcp";
import type { ServerSummary } from "../code-mode-types.js";

/** What a tool call answers: an MCP CallToolResult (content blocks, structuredContent, isError). */
export interface ToolCallResult {
  readonly content: readonly unknown[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
  readonly [key: string]: unknown;
}

export interface ToolInvocationOptions {
  /** Stops the call (the execution ended or timed out). */
  readonly signal?: AbortSignal;
  /** Who calls (a caller's id): an invoker with per-user state (MCP sign-ins) calls as them. @default the operator */
  readonly user?: string;
  /** Answers a 2026-07-28 tool's input_required rounds (invokers without them ignore it). @default none: such a call fails with MCP_INPUT_REQUIRED */
  readonly onInputRequired?: InputRequiredHandler;
}

export interface DiscoverOptions {
  readonly complete?: boolean;
  readonly servers?: readonly string[];
  /** Whose servers and sessions (a caller's id): theirs are found too (their own servers, their sign-ins). @default the operator */
  readonly user?: string;
}

/**
 * A source of tools that code mode exposes as "servers": the MCP manager's servers today, the
 * registered script tools later. Everything code mode does (list_servers, search_tools, the
 * generated code API, the bridge) goes through this seam. Failures are thrown as ThinktankError
 * with a code (MCP_SERVER_NOT_FOUND, MCP_TOOL_NOT_FOUND, SERVICE_UNAVAILABLE, MCP_CALL_TIMEOUT...).
 */
export interface ToolInvoker {
  /**
   * Names of the enabled servers this invoker answers for, sorted. With `user`, also the servers
   * that are that user's own (MCP servers a user added, `~<name>`); without, the shared ones only.
   * Every method's `user` (a caller's id) is whose view and credentials to use; invokers without
   * per-user state ignore it. @default the operator
   */
  serverNames(user?: string): readonly string[];
  /** list_servers' view of one server; never connects. */
  describe(server: string, user?: string): ServerSummary;
  /**
   * The server's tools as last known (live, or cached); undefined when never listed. The same array
   * is returned while the list is unchanged, so callers can detect changes by identity.
   */
  knownTools(server: string, user?: string): readonly CatalogTool[] | undefined;
  /** The server's tools, connecting when needed. */
  listTools(server: string, user?: string): Promise<readonly CatalogTool[]>;
  /** Calls a tool; a tool-level failure is a result with isError, not a throw. */
  callTool(server: string, tool: string, args: Record<string, unknown>, options?: ToolInvocationOptions): Promise<ToolCallResult>;
  /** Subscribes to tool-list changes; answers the unsubscribe function. @default no notifications */
  onToolsChanged?(listener: (server: string) => void): () => void;
  /**
   * Finds the tools of servers not listed yet. By default without holding anyone up: connects start
   * in the background, and the promise waits at most for a new server's short first-connect grace.
   * `complete` waits until every server not known to be down has connected or failed (prepare).
   * `servers` (the servers a program names, execute_code) waits for those only, and for no grace.
   */
  discover?(options?: DiscoverOptions): Promise<void>;
}

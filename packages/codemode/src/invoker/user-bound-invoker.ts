import type { CatalogTool } from "@thinktank/mcp";
import type { ServerSummary } from "../code-mode-types.js";
import type { ToolCallResult, ToolInvocationOptions, ToolInvoker } from "./tool-invoker.js";

/**
 * An invoker as one user sees it: every read and call passes `user` (their sessions, sign-ins and
 * own servers), so code that knows no users (the bridge) calls as the program's user.
 */
export function userBoundInvoker(invoker: ToolInvoker, user: string): ToolInvoker {
  return {
    serverNames: () => invoker.serverNames(user),
    describe: (server): ServerSummary => invoker.describe(server, user),
    knownTools: (server): readonly CatalogTool[] | undefined => invoker.knownTools(server, user),
    listTools: (server) => invoker.listTools(server, user),
    callTool: (server, tool, args, options: ToolInvocationOptions = {}): Promise<ToolCallResult> => invoker.callTool(server, tool, args, { ...options, user }),
  };
}

import type { StructuredToolInterface } from "@langchain/core/tools";
import type { CodeExecutionMode } from "@thinktank/core";
import { loadAllManagedTools, modelToolNames, type InputRequiredHandler, type McpManager, type ServerStatus } from "@thinktank/mcp";
import type { CodeMode } from "../code-mode.js";
import type { ExecutionPlace } from "../code-mode-types.js";
import { createCodeModeTools } from "./create-code-mode-tools.js";
import { describeToolSurface, describeWithOwnServers, type SurfaceSection, type ToolSurfaceDescription } from "./describe-tool-surface.js";

export interface ChooseToolSurfaceOptions {
  readonly codeMode: CodeMode;
  /** The manager behind the direct-mode tools (the same one code mode's invoker wraps). */
  readonly manager: McpManager;
  /** config.code_execution.mode */
  readonly mode: CodeExecutionMode;
  /** config.code_execution.auto_threshold_tokens */
  readonly autoThresholdTokens: number;
  /** Whose workspace execute_code uses (the run's thread). */
  readonly place: ExecutionPlace;
  /** Answers a 2026-07-28 tool's input_required rounds (the agent asks the user with an interrupt), in direct mode and in execute_code's programs. @default none */
  readonly onInputRequired?: InputRequiredHandler;
}

/** The MCP part of one request's tool surface. */
export interface ToolSurfaceChoice {
  readonly mode: "direct" | "code";
  readonly reason: string;
  /** Direct: every MCP tool (model-facing names); code: list_servers, search_tools, execute_code. */
  readonly tools: readonly StructuredToolInterface[];
  /** Prompt sections to add (code mode: the code-execution section). */
  readonly sections: readonly SurfaceSection[];
  /** The definitions and token counts behind the choice. */
  readonly description: ToolSurfaceDescription;
  /** Servers left out of direct mode because their tools could not be loaded, with the reason. */
  readonly unavailable: readonly { readonly server: string; readonly reason: string }[];
}

/**
 * Picks direct or code mode for a request and builds the tools. Auto chooses code mode when the
 * enabled MCP tools' definitions cost more than auto_threshold_tokens (o200k), so a few small
 * servers are called directly and a large catalog costs the same handful of tokens as a small one.
 *
 * Never waits for a server that does not answer: only known tool lists count (live sessions and
 * the disk cache). Servers whose tools are unknown connect in the background (a failed one is
 * retried after a backoff), and show up on a later request; the only wait is a new server's short
 * first-connect grace (mcp.first_connect_grace_ms), so the first request after start-up still
 * sees servers that connect quickly. Direct mode offers the servers that are ready (tools known,
 * no failed connect since) and reports the others with their reason. Cheap per request: the
 * token counts are kept until a tool list changes.
 */
export async function chooseToolSurface(options: ChooseToolSurfaceOptions): Promise<ToolSurfaceChoice> {
  const { codeMode, manager } = options;
  // Whose sessions and sign-ins (the run's owner); the operator's when none.
  const user = options.place.userId;
  const settings = codeMode.toolSettings();
  manager.discoverInBackground(user);
  // Code mode's tools do not depend on the tool lists; direct and auto do.
  if (options.mode !== "code") await manager.firstConnectsSettled(user);
  codeMode.catalog.refresh();
  const describeOptions = { ...settings, mode: options.mode, autoThresholdTokens: options.autoThresholdTokens };
  const shared = codeMode.catalog.derived(`surface:${options.mode}:${options.autoThresholdTokens}`, (servers) => describeToolSurface(servers, describeOptions));
  // A user's own servers count too (their part only, kept until their tools or the shared surface change).
  const own = codeMode.users.view(user);
  const description = own ? own.derived(shared, () => describeWithOwnServers(shared, own.servers, describeOptions)) : shared;
  if (description.mode === "code") {
    return { mode: "code", reason: description.reason, tools: createCodeModeTools(codeMode, options.place, options.onInputRequired ? { onInputRequired: options.onInputRequired } : {}), sections: description.sections, description, unavailable: [] };
  }
  const naming = codeMode.catalog.derived("naming", (servers) => modelToolNames(servers));
  // An assistant's MCP servers (place.servers): the others are not offered, nor reported.
  const allowed = options.place.servers ?? (() => true);
  const ready = manager.readyServers(user).filter(allowed);
  const loaded = await loadAllManagedTools(manager, {
    servers: ready,
    knownOnly: true,
    ...(user !== undefined ? { user } : {}),
    ...(options.onInputRequired ? { onInputRequired: options.onInputRequired } : {}),
    toolName: (server, tool) => naming.nameOf(server, tool) ?? modelToolNames([{ server, tools: [{ name: tool }] }]).nameOf(server, tool) ?? `${server}__${tool}`,
  });
  const notReady = manager.status(user).filter((status) => allowed(status.name) && !ready.includes(status.name));
  const unavailable = [...loaded.unavailable, ...notReady.map((status) => ({ server: status.name, reason: whyNotReady(status) }))].sort((a, b) => (a.server < b.server ? -1 : 1));
  return { mode: "direct", reason: description.reason, tools: loaded.tools, sections: [], description, unavailable };
}

/** Why a server's tools are not offered on this request. */
function whyNotReady(status: ServerStatus): string {
  if ((status.state === "unavailable" || status.state === "needs_auth") && status.reason) return status.reason;
  if (status.state === "connecting") return status.reason ? `${status.reason}; trying again in the background` : "connecting in the background; its tools are not known yet";
  return "its tools are not known yet; it connects in the background";
}

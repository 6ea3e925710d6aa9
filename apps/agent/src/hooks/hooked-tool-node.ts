import { ToolMessage } from "@langchain/core/messages";
import type { ToolCall } from "@langchain/core/messages/tool";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { Command, LangGraphRunnableConfig } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { trackRunWork } from "@thinktank/core";
import type { HookSession, HookToolCall } from "@thinktank/plugins";
import { hookBlock, hookBlockedKey, hookStopKey, stopText, withToolFeedback } from "./hook-messages.js";
import { hookRunOptions } from "./hook-nodes.js";

/** The tools node's ToolNode: with PreToolUse / PostToolUse hooks around each call when a plugin has any, else the plain one. */
export function toolNodeFor(tools: StructuredToolInterface[], hooks: HookSession | undefined): ToolNode {
  return hooks && (hooks.has("PreToolUse") || hooks.has("PostToolUse")) ? new HookedToolNode(tools, hooks) : new ToolNode(tools);
}

/**
 * Each call of the message, in parallel as ToolNode runs them, between its hooks:
 * - PreToolUse: `deny` (or exit 2) and `ask` (hooks cannot ask for approval here) answer the model
 *   with the reason instead of running the tool; `updatedInput` runs the call with those arguments;
 *   `allow` runs it; `continue: false` runs nothing and ends the run;
 * - PostToolUse, after a call that succeeded: a block's reason and any context are added to the
 *   tool result; `continue: false` ends the run after it.
 * Context a PreToolUse hook adds is added to the result too. The call's ToolMessage keeps every
 * other field (artifact, status), so state effects such as view_skill still apply.
 */
class HookedToolNode extends ToolNode {
  constructor(
    tools: StructuredToolInterface[],
    private readonly hooks: HookSession,
  ) {
    super(tools);
  }

  protected override async runTool(call: ToolCall, config: LangGraphRunnableConfig, state: unknown): Promise<ToolMessage | Command> {
    const options = hookRunOptions(config);
    const tool = this.tools.find((candidate) => candidate.name === call.name);
    const hookCall: HookToolCall = { name: call.name, args: call.args, ...(call.id ? { id: call.id } : {}), ...mcpOf(tool) };
    const answer = (content: string, extra: Record<string, unknown>) => new ToolMessage({ content, name: call.name, tool_call_id: call.id ?? "", status: "error", additional_kwargs: extra });
    const feedback: string[] = [];
    let args = call.args;
    if (this.hooks.has("PreToolUse")) {
      const pre = await trackRunWork(config, this.hooks.preToolUse(hookCall, options));
      if (pre.stop) return answer(stopText("PreToolUse", pre.stop.plugin, pre.stop.reason), { [hookStopKey]: { event: "PreToolUse", ...pre.stop } });
      if (pre.blocked) return answer(`Blocked by a PreToolUse hook (plugin ${pre.blocked.plugins.join(", ")}): ${pre.blocked.reason}`, { [hookBlockedKey]: { event: "PreToolUse", plugins: pre.blocked.plugins } });
      if (pre.decision === "ask") {
        const reason = `a PreToolUse hook asked for the user's approval, which hooks cannot ask for here, so the call did not run${pre.askReason ? `: ${pre.askReason}` : ""}`;
        return answer(`Blocked: ${reason}`, { [hookBlockedKey]: { event: "PreToolUse", decision: "ask" } });
      }
      if (pre.args) args = pre.args;
      feedback.push(...pre.context.map((entry) => hookBlock("hook_context", "PreToolUse", entry.plugin, entry.text)));
    }
    const output = await super.runTool(args === call.args ? call : { ...call, args }, config, state);
    if (!(output instanceof ToolMessage)) return output;
    let stop: Record<string, unknown> = {};
    if (this.hooks.has("PostToolUse") && output.status !== "error") {
      const post = await trackRunWork(config, this.hooks.postToolUse({ ...hookCall, args }, responseOf(output), options));
      if (post.blocked) feedback.push(hookBlock("hook_feedback", "PostToolUse", post.blocked.plugins.join(", "), post.blocked.reason));
      feedback.push(...post.context.map((entry) => hookBlock("hook_context", "PostToolUse", entry.plugin, entry.text)));
      if (post.stop) stop = { [hookStopKey]: { event: "PostToolUse", ...post.stop } };
    }
    return withToolFeedback(output, feedback, stop);
  }
}

/** A direct-mode MCP tool's server and MCP name (metadata.mcp, set by @thinktank/mcp). */
function mcpOf(tool: unknown): Pick<HookToolCall, "mcp"> {
  const mcp = (tool as { metadata?: { mcp?: { server?: unknown; tool?: unknown } } } | undefined)?.metadata?.mcp;
  return mcp && typeof mcp.server === "string" && typeof mcp.tool === "string" ? { mcp: { server: mcp.server, tool: mcp.tool } } : {};
}

/** `tool_response`: the result as JSON when it is JSON text, else its text (or content blocks). */
function responseOf(message: ToolMessage): unknown {
  const { content } = message;
  if (typeof content !== "string") return content;
  const trimmed = content.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      return JSON.parse(trimmed) as unknown;
    } catch {
      return content;
    }
  }
  return content;
}

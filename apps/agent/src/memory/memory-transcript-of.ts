import type { BaseMessage } from "@langchain/core/messages";
import type { MemoryTranscriptEntry } from "@thinktank/memory";
import { slashCommandKey } from "../graph/build-lead-agent-graph.js";
import { hookBlockedKey, hookContextKey, hookFeedbackKey } from "../hooks/hook-messages.js";

/**
 * A thread's messages as automatic memory sees them, each labelled with where its text came from:
 * `user` only for what the person typed (a slash command as typed; its expansion is the command's
 * text, a `file`); a hook's feedback and context are `file` text of their plugin; answers are the
 * assistant's; tool results are their tool's (a sub-agent's `task` answer included). The upload
 * note, offered skills and the memory digest the agent stores on a message are not the user's words
 * and are left out, as are a prompt a hook blocked and its answer (the files themselves reach memory only through the tool results that read them).
 */
export function memoryTranscriptOf(messages: readonly BaseMessage[]): MemoryTranscriptEntry[] {
  const entries: MemoryTranscriptEntry[] = [];
  for (const message of messages) {
    const kwargs = (message.additional_kwargs ?? {}) as Record<string, unknown>;
    const text = textOf(message.content);
    // A prompt a hook blocked is erased for the model (Claude Code's rule), and so is its answer.
    if (Object.hasOwn(kwargs, hookBlockedKey) && message.getType() !== "tool") continue;
    switch (message.getType()) {
      case "human": {
        const feedback = kwargs[hookFeedbackKey] as { plugins?: unknown } | undefined;
        if (feedback) {
          entries.push({ role: "file", source: `hook of ${pluginNames(feedback.plugins)}`, text });
          break;
        }
        const command = kwargs[slashCommandKey] as { original?: unknown; name?: unknown } | undefined;
        if (command && typeof command.original === "string") {
          entries.push({ role: "user", source: "user", text: command.original });
          entries.push({ role: "file", source: `slash command ${command.original.trim().split(/\s+/)[0] ?? ""}`, text });
        } else if (text.trim() !== "") entries.push({ role: "user", source: "user", text });
        for (const context of Array.isArray(kwargs[hookContextKey]) ? (kwargs[hookContextKey] as { plugin?: unknown; text?: unknown }[]) : []) {
          if (typeof context.text === "string" && context.text.trim() !== "") entries.push({ role: "file", source: `hook of ${pluginNames([context.plugin])}`, text: context.text });
        }
        break;
      }
      case "ai":
        if (text.trim() !== "") entries.push({ role: "assistant", source: "assistant", text });
        break;
      case "tool":
        entries.push({ role: "tool", source: message.name ?? "tool", text });
        break;
      default:
        if (text.trim() !== "") entries.push({ role: "file", source: message.getType(), text });
    }
  }
  return entries;
}

/** The text of a message's content (text blocks joined; images and files left out). */
function textOf(content: BaseMessage["content"]): string {
  if (typeof content === "string") return content;
  return content
    .map((block) => (typeof block === "string" ? block : block.type === "text" && typeof (block as { text?: unknown }).text === "string" ? (block as { text: string }).text : ""))
    .filter((part) => part !== "")
    .join("\n");
}

function pluginNames(plugins: unknown): string {
  const names = (Array.isArray(plugins) ? plugins : []).filter((name): name is string => typeof name === "string");
  return names.length > 0 ? `plugin ${names.join(", ")}` : "a plugin";
}

import { countTokens } from "@thinktank/mcp";
import { memoryDigest, memorySettingsFor } from "@thinktank/memory";
import { resolveModel } from "@thinktank/models";
import type { RequestInfo, RequestProvider } from "../request/request-context.js";
import type { AgentRuntime } from "../runtime/agent-runtime.js";
import { createMemoryTool } from "../tools/memory-tool.js";

/**
 * Per-user memory in a run (packages/memory): the `memory` tool over the run's owner's memory, and
 * the `<memory>` digest a new thread's first message carries (the graph stores it there once:
 * build-lead-agent-graph.ts, node model, with its first answer), never in the system prompt. Nothing at all when
 * memory is off for the run: config `memory.enabled: false`, the owner's own switch
 * (`users.<id>.memory.enabled: false` in extensions_config.json), the run's assistant's `memory: false`
 * or the run's `config.configurable.memory: false`.
 */
export function createMemoryProvider(runtime: AgentRuntime): RequestProvider {
  return {
    name: "memory",
    async contribute(request) {
      if (!(await memoryOn(runtime, request))) return {};
      const memory = runtime.memory.forUser(request.ownerId);
      const named = request.assistant?.settings.model;
      const anthropic = resolveModelProvider(request, named) === "anthropic";
      const maxTokens = request.config.memory.digest_tokens;
      return { tools: [await createMemoryTool(memory, { anthropic })], memoryDigest: () => memoryDigest(memory, { maxTokens, countTokens }) };
    },
  };
}

/** Whether memory is on for this run: the server's and owner's settings, the assistant's, the run's. */
async function memoryOn(runtime: AgentRuntime, request: RequestInfo): Promise<boolean> {
  if (!request.config.memory.enabled || request.memory === false || request.assistant?.settings.memory === false) return false;
  const snapshot = await runtime.snapshotFor(request);
  return memorySettingsFor(request.config, snapshot.settings.document, request.ownerId).enabled;
}

/** The provider of the model the run uses; undefined when none is configured (the run then fails on its model first). */
function resolveModelProvider(request: RequestInfo, named: string | undefined): string | undefined {
  try {
    return resolveModel(request.config, named).model.provider;
  } catch {
    return undefined;
  }
}

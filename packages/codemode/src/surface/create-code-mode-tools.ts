import { AsyncLocalStorage } from "node:async_hooks";
import crypto from "node:crypto";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { isThinktankError, trackRunWork } from "@thinktank/core";
import type { InputRequiredHandler } from "@thinktank/mcp";
import { z } from "zod";
import type { CodeMode } from "../code-mode.js";
import type { ExecutionAsk, ExecutionPlace } from "../code-mode-types.js";
import { codeModeToolSpecs } from "./code-mode-tool-specs.js";
import { executeInput, searchInput } from "./tool-inputs.js";

/**
 * list_servers, search_tools and execute_code as LangChain tools for one thread (the agent's code
 * mode). Each answers JSON text; a failure answers `{ "error": { code, message } }` instead of
 * throwing, so the model reads what went wrong and can correct itself.
 *
 * With `onInputRequired` (the agent's LangGraph interrupt), a tool the program calls that answers
 * input_required pauses the run: execute_code rethrows the interrupt, and on resume runs the program
 * again, replaying the calls it made before (ExecutionAsk). The handler runs in the async context of
 * the execute_code call, where the interrupt finds the run, although the bridge's requests arrive elsewhere.
 */
export function createCodeModeTools(codeMode: CodeMode, place: ExecutionPlace, options: { readonly onInputRequired?: InputRequiredHandler } = {}): StructuredToolInterface[] {
  const specs = codeModeToolSpecs(codeMode.toolSettings());
  const listServers = tool(async () => answer(() => ({ servers: codeMode.listServers(place.userId, place.servers) })), {
    name: specs.listServers.name,
    description: specs.listServers.description,
    schema: z.object(specs.listServers.shape),
  });
  const searchTools = tool(
    async (input) =>
      answer(async () => ({ tools: await codeMode.searchTools(searchInput(input), place.userId, place.servers) })),
    { name: specs.searchTools.name, description: specs.searchTools.description, schema: z.object(specs.searchTools.shape) },
  );
  const executeCode = tool(
    async (input, config) => {
      const signal = (config as { signal?: AbortSignal } | undefined)?.signal ?? place.signal;
      // The run's signal kills the program; the run waits for the kill (trackRunWork) before it counts as ended.
      const ask = options.onInputRequired ? executionAsk(options.onInputRequired, place, input, config) : undefined;
      const result = await trackRunWork(config, codeMode.executeCode(executeInput(input), { ...place, ...(signal ? { signal } : {}) }, ask));
      return JSON.stringify(result);
    },
    { name: specs.executeCode.name, description: specs.executeCode.description, schema: z.object(specs.executeCode.shape) },
  );
  return [listServers, searchTools, executeCode];
}

/**
 * The ask of one execute_code call: the handler bound to this call's async context, and the replay
 * key (the thread, the model's tool call id, the program), the same on the resumed run.
 */
function executionAsk(handler: InputRequiredHandler, place: ExecutionPlace, input: unknown, config: unknown): ExecutionAsk {
  const inContext = AsyncLocalStorage.snapshot();
  const toolCallId = (config as { toolCall?: { id?: unknown } } | undefined)?.toolCall?.id;
  const replayKey =
    typeof toolCallId === "string" && toolCallId !== ""
      ? crypto.createHash("sha256").update(JSON.stringify([place.userId ?? "", place.threadId ?? "", toolCallId, input])).digest("hex")
      : undefined;
  return { onInputRequired: (requests, context) => inContext(() => handler(requests, context)), ...(replayKey ? { replayKey } : {}) };
}

async function answer(work: () => unknown): Promise<string> {
  try {
    return JSON.stringify(await work());
  } catch (error) {
    const code = isThinktankError(error) ? error.code : "INTERNAL";
    return JSON.stringify({ error: { code, message: (error as Error).message } });
  }
}

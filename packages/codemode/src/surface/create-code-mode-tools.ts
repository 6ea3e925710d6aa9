import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { isThinktankError, trackRunWork } from "@thinktank/core";
import { z } from "zod";
import type { CodeMode } from "../code-mode.js";
import type { ExecutionPlace } from "../code-mode-types.js";
import { codeModeToolSpecs } from "./code-mode-tool-specs.js";
import { executeInput, searchInput } from "./tool-inputs.js";

/**
 * list_servers, search_tools and execute_code as LangChain tools for one thread (the agent's code
 * mode). Each answers JSON text; a failure answers `{ "error": { code, message } }` instead of
 * throwing, so the model reads what went wrong and can correct itself.
 */
export function createCodeModeTools(codeMode: CodeMode, place: ExecutionPlace): StructuredToolInterface[] {
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
      const result = await trackRunWork(config, codeMode.executeCode(executeInput(input), { ...place, ...(signal ? { signal } : {}) }));
      return JSON.stringify(result);
    },
    { name: specs.executeCode.name, description: specs.executeCode.description, schema: z.object(specs.executeCode.shape) },
  );
  return [listServers, searchTools, executeCode];
}

async function answer(work: () => unknown): Promise<string> {
  try {
    return JSON.stringify(await work());
  } catch (error) {
    const code = isThinktankError(error) ? error.code : "INTERNAL";
    return JSON.stringify({ error: { code, message: (error as Error).message } });
  }
}

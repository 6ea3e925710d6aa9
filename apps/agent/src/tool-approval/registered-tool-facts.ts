import type { ToolRegistry, ToolsRequestProvider } from "@thinktank/tools";
import { markScriptTool, registeredScriptFacts } from "./script-tool-facts.js";

/**
 * The tools library's request provider with its registered tools marked as (trusted) script tools,
 * so `tools.approval: always` asks before their first call in a thread; web_search is no script
 * and stays unmarked.
 */
export function withRegisteredToolFacts(provider: ToolsRequestProvider, registry: ToolRegistry): ToolsRequestProvider {
  return {
    name: provider.name,
    async contribute(info) {
      const [contribution, view] = await Promise.all([provider.contribute(info), registry.view()]);
      for (const tool of contribution.tools) {
        const definition = view.tools.get(tool.name);
        if (definition) markScriptTool(tool, registeredScriptFacts(definition));
      }
      return contribution;
    },
  };
}

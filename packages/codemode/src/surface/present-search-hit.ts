import type { CodeApiToolEntry } from "@thinktank/codegen";
import type { ToolSearchResult } from "@thinktank/mcp";
import type { SearchToolsHit } from "../code-mode-types.js";

/** A search result as search_tools returns it: snake_case, with import lines at detail "full". */
export function presentSearchHit(hit: ToolSearchResult, names: CodeApiToolEntry | undefined): SearchToolsHit {
  return {
    server: hit.server,
    name: hit.name,
    score: hit.score,
    ...(hit.title !== undefined ? { title: hit.title } : {}),
    ...(hit.description !== undefined ? { description: hit.description } : {}),
    ...(hit.inputSchema !== undefined ? { input_schema: hit.inputSchema } : {}),
    ...(hit.outputSchema !== undefined ? { output_schema: hit.outputSchema } : {}),
    ...(hit.wrapperPath !== undefined ? { wrapper_path: hit.wrapperPath } : {}),
    ...(names
      ? {
          typescript_import: `import { ${names.functionName} } from "${names.wrapperPath.replace(/\/[^/]+$/, "/index.ts")}";`,
          python_import: `from servers.${names.pythonPackage} import ${names.pythonFunctionName}`,
        }
      : {}),
  };
}

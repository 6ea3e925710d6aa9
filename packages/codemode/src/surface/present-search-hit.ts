import type { CodeApiToolEntry } from "@thinktank/codegen";
import type { ToolSearchResult } from "@thinktank/mcp";
import type { SearchToolsHit } from "../code-mode-types.js";

/** A search result as search_tools returns it: snake_case, with import lines at detail "full" (in the form execute_code's description uses). */
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
          // The short form execute_code's description teaches (`servers/<dir>`); the bundler resolves it in the
          // shared code API and in the user's own.
          typescript_import: `import { ${names.functionName} } from "servers/${serverDir(names.wrapperPath)}";`,
          python_import: `from servers.${names.pythonPackage} import ${names.pythonFunctionName}`,
        }
      : {}),
  };
}

/** `/mnt/code-api/servers/github/searchRepositories.ts` → `github`: the folder of the server's wrappers. */
function serverDir(wrapperPath: string): string {
  return wrapperPath.split("/").at(-2) ?? "";
}

import type { SearchDetail } from "@thinktank/mcp";
import type { CodeLanguage, ExecuteCodeInput, SearchToolsInput } from "../code-mode-types.js";

/** search_tools' arguments as parsed from its schema, as the library takes them (absent options left out). */
export function searchInput(input: { query: string; server?: string | undefined; detail?: string | undefined; limit?: number | undefined }): SearchToolsInput {
  return {
    query: input.query,
    ...(input.server !== undefined ? { server: input.server } : {}),
    ...(input.detail !== undefined ? { detail: input.detail as SearchDetail } : {}),
    ...(input.limit !== undefined ? { limit: input.limit } : {}),
  };
}

/** execute_code's arguments as parsed from its schema, as the library takes them. */
export function executeInput(input: { code: string; language?: string | undefined; timeout?: number | undefined }): ExecuteCodeInput {
  return {
    code: input.code,
    ...(input.language !== undefined ? { language: input.language as CodeLanguage } : {}),
    ...(input.timeout !== undefined ? { timeout: input.timeout } : {}),
  };
}

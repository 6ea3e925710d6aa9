import { summarizeDescription } from "@thinktank/search";
import type { ScoredTool } from "./rerank-tools.js";
import type { SearchDetail, ToolSearchResult, WrapperPathResolver } from "./search-types.js";

/** Scored tools as search results at the requested detail (see `ToolSearchOptions.detail`). */
export function presentResults(scored: readonly ScoredTool[], detail: SearchDetail, wrapperPath: WrapperPathResolver): ToolSearchResult[] {
  return scored.map(({ segment, document: index, score }) => {
    const tool = segment.tools[index]!;
    const annotations = tool.annotations as Record<string, unknown> | undefined;
    const title = typeof tool.title === "string" ? tool.title : typeof annotations?.title === "string" ? annotations.title : undefined;
    const base = { server: segment.key, name: tool.name, score: Math.round(score * 1000) / 1000 };
    if (detail === "name") return base;
    const withTitle = title ? { ...base, title } : base;
    if (detail === "desc") return { ...withTitle, description: summarizeDescription(tool.description ?? "") };
    return {
      ...withTitle,
      description: tool.description ?? "",
      inputSchema: tool.inputSchema,
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
      wrapperPath: wrapperPath(segment.key, tool.name),
    };
  });
}

import type { StructuredToolInterface } from "@langchain/core/tools";

/**
 * The `memory` tool as Anthropic's own memory tool type (`memory_20250818` from @langchain/anthropic):
 * ChatAnthropic sends it as `{ type: "memory_20250818", name: "memory" }`, so Claude uses the
 * memory tool it was trained on; `execute` answers its commands (view, create, str_replace, insert,
 * delete, rename). The provider package is imported here, on first use, as createChatModel does.
 */
export async function anthropicMemoryTool(execute: (args: Record<string, unknown>) => Promise<string>): Promise<StructuredToolInterface> {
  const { tools } = await import("@langchain/anthropic");
  return tools.memory_20250818({ execute: (args) => execute(args as unknown as Record<string, unknown>) }) as unknown as StructuredToolInterface;
}

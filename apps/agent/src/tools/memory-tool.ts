import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { memoryCommandJsonSchema, memoryToolDescription, runMemoryCommand, type UserMemory } from "@thinktank/memory";
import { anthropicMemoryTool } from "@thinktank/models";

export const memoryToolName = "memory";

/**
 * The `memory` tool of one run, over its owner's memory only (packages/memory): Anthropic's own
 * memory tool type when the run's model is Anthropic's (`anthropic`), else an ordinary tool with the
 * same commands and arguments. A refused command (a path outside /memories, a link, a full memory,
 * an edit that does not apply) fails the call with `CODE: message`, as the file tools do.
 */
export async function createMemoryTool(memory: UserMemory, options: { readonly anthropic: boolean }): Promise<StructuredToolInterface> {
  const execute = async (args: unknown): Promise<string> => {
    const result = await runMemoryCommand(memory, args);
    if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
    return result.text;
  };
  if (options.anthropic) return anthropicMemoryTool(execute);
  return tool(execute, { name: memoryToolName, description: memoryToolDescription, schema: memoryCommandJsonSchema as unknown as Record<string, unknown> });
}

import type { StructuredToolInterface } from "@langchain/core/tools";
import { toJsonSchema } from "@langchain/core/utils/json_schema";
import type { ToolDefinition } from "@thinktank/codemode";

/**
 * A LangChain tool as a model API receives it: name, description and the JSON Schema of its input
 * (zod or JSON Schema alike; without `$schema`, which model APIs do not take). The same shape as
 * codemode's ToolDefinition, so token counts agree.
 */
export function toolDefinition(tool: StructuredToolInterface): ToolDefinition {
  const { $schema: _dialect, ...schema } = toJsonSchema(tool.schema as Parameters<typeof toJsonSchema>[0]) as Record<string, unknown>;
  return { name: tool.name, description: tool.description, input_schema: schema };
}

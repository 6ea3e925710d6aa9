import type { ToolDefinition, ToolRuntime } from "./tool-definition.js";

/** A checked registry entry as a ToolDefinition, defaults applied (the entry's extra `x-` keys are left out). */
export function toDefinition(name: string, entry: Readonly<Record<string, unknown>>, defaultTimeoutSeconds: number): ToolDefinition {
  return {
    name,
    description: entry.description as string,
    input_schema: entry.input_schema as Record<string, unknown>,
    ...(entry.output_schema !== undefined ? { output_schema: entry.output_schema as Record<string, unknown> } : {}),
    runtime: entry.runtime as ToolRuntime,
    script: entry.script as string,
    timeout: typeof entry.timeout === "number" ? entry.timeout : defaultTimeoutSeconds,
    parallel_capable: entry.parallel_capable === true,
    enabled: entry.enabled !== false,
    ...(entry.env !== undefined ? { env: entry.env as Record<string, string> } : {}),
    ...(entry.network !== undefined ? { network: entry.network as string[] } : {}),
    ...(typeof entry.created_at === "string" ? { created_at: entry.created_at } : {}),
    ...(typeof entry.updated_at === "string" ? { updated_at: entry.updated_at } : {}),
  };
}

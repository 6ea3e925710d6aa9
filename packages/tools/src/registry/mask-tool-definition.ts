import { maskEveryValue } from "@thinktank/core";
import type { ToolDefinition } from "./tool-definition.js";

/**
 * A tool fit to show (HTTP answers, the CLI, logs): every `env` value masked as MCP server
 * entries are, `${VAR}` placeholders shown as written. A PUT that sends a masked value back keeps
 * the stored one (ToolRegistry.update), so a read-edit-write round trip loses nothing.
 */
export function maskToolDefinition(tool: ToolDefinition): ToolDefinition {
  if (tool.env === undefined) return tool;
  return { ...tool, env: maskEveryValue(tool.env) as Record<string, string> };
}

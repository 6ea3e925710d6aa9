import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { JsonSchemaType, JsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { CatalogTool } from "../catalog/catalog-types.js";

/**
 * The check of a tool's structuredContent against its outputSchema that the SDK's Client.callTool
 * makes, with one difference: an outputSchema that cannot be compiled (a pattern in another regex
 * dialect, a `$ref` to nothing) leaves that tool's results unchecked instead of failing the whole
 * tools/list (the SDK compiles every outputSchema while listing, and a throw there made the server
 * unusable). Same rule as the bridge's argument check: a schema that cannot be compiled lets the
 * call through, and the server decides.
 */
export class ToolOutputCheck {
  private readonly validators = new Map<string, JsonSchemaValidator<unknown>>();
  private readonly ajv = new AjvJsonSchemaValidator();

  /** Compiles the output schemas of a fresh tool list; `unchecked` hears of each that cannot be compiled. */
  update(tools: readonly CatalogTool[], unchecked: (tool: string, reason: string) => void): void {
    this.validators.clear();
    for (const tool of tools) {
      if (!tool.outputSchema) continue;
      try {
        this.validators.set(tool.name, this.ajv.getValidator(tool.outputSchema as JsonSchemaType));
      } catch (error) {
        unchecked(tool.name, (error as Error).message);
      }
    }
  }

  /** Throws as the SDK does when a tool with a (compiled) outputSchema answers without matching structuredContent. */
  check(tool: string, result: CallToolResult): void {
    const validate = this.validators.get(tool);
    if (!validate || result.isError) return;
    if (!result.structuredContent) throw new McpError(ErrorCode.InvalidRequest, `Tool ${tool} has an output schema but did not return structured content`);
    const checked = validate(result.structuredContent);
    if (!checked.valid) throw new McpError(ErrorCode.InvalidParams, `Structured content does not match the tool's output schema: ${checked.errorMessage}`);
  }
}

import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import type { McpManager } from "@thinktank/mcp";
import { readSkillResource, type SkillResource } from "@thinktank/skills";
import { withCodedErrors } from "../tools/tool-failure.js";

/**
 * `read_resource(uri)`: reads one of the active skill's resources (resources.json): a file of the
 * skill, or a resource of an MCP server through the shared manager. Unknown URIs answer NOT_FOUND
 * with the URIs that exist.
 */
export function createReadResourceTool(resources: readonly SkillResource[], manager: McpManager, user?: string): StructuredToolInterface {
  // As the run's owner (their MCP session and sign-in) when there is one.
  const reader = user === undefined ? manager : { readResource: (server: string, params: { uri: string }) => manager.readResource(server, params, { user }) };
  return tool(({ uri }: { uri: string }) => withCodedErrors(() => readSkillResource(resources, uri, reader)), {
    name: "read_resource",
    description: "Read one of the active skill's resources by its uri (listed in <skill_resources>).",
    schema: { type: "object", properties: { uri: { type: "string", description: "The resource's uri, exactly as listed." } }, required: ["uri"], additionalProperties: false },
  });
}

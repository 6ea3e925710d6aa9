import fs from "node:fs";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { ThinktankError } from "@thinktank/core";
import type { McpManager } from "@thinktank/mcp";
import type { SkillResource } from "@thinktank/skills";
import { withCodedErrors } from "../tools/tool-failure.js";

/** Largest resource text returned in one call. */
const maxResourceBytes = 200_000;

/**
 * `read_resource(uri)`: reads one of the active skill's resources (resources.json): a file of the
 * skill, or a resource of an MCP server through the shared manager. Unknown URIs answer NOT_FOUND
 * with the URIs that exist.
 */
export function createReadResourceTool(resources: readonly SkillResource[], manager: McpManager): StructuredToolInterface {
  return tool(
    ({ uri }: { uri: string }) =>
      withCodedErrors(async () => {
        const resource = resources.find((candidate) => candidate.uri === uri);
        if (!resource) {
          const known = resources.map((candidate) => candidate.uri);
          throw new ThinktankError("NOT_FOUND", `no resource ${JSON.stringify(uri)} in this skill${known.length > 0 ? `; it has ${known.join(", ")}` : ""}`);
        }
        if (resource.source.kind === "file") return cap(fs.readFileSync(resource.source.file, "utf8"));
        const result = await manager.readResource(resource.source.server, { uri: resource.source.uri });
        const parts = result.contents.map((content) =>
          "text" in content && typeof content.text === "string" ? content.text : `[binary content ${content.mimeType ?? ""} of ${String((content as { blob?: string }).blob?.length ?? 0)} base64 characters]`,
        );
        return cap(parts.join("\n\n"));
      }),
    {
      name: "read_resource",
      description: "Read one of the active skill's resources by its uri (listed in <skill_resources>).",
      schema: { type: "object", properties: { uri: { type: "string", description: "The resource's uri, exactly as listed." } }, required: ["uri"], additionalProperties: false },
    },
  );
}

function cap(text: string): string {
  if (Buffer.byteLength(text) <= maxResourceBytes) return text;
  return `${Buffer.from(text).subarray(0, maxResourceBytes).toString("utf8")}\n[... truncated at ${maxResourceBytes} bytes]`;
}

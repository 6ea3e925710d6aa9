import fs from "node:fs";
import { ThinktankError } from "@thinktank/core";
import type { SkillResource } from "./skill-context-spec.js";

/** Largest resource text returned in one call. */
const maxResourceBytes = 200_000;

/** One part of an MCP resource: text, or a base64 blob. */
export interface McpResourceContent {
  readonly mimeType?: string;
  readonly text?: unknown;
  readonly blob?: unknown;
}

/** Reads a resource of an MCP server: the MCP manager of @thinktank/mcp fits. */
export interface McpResourceReader {
  readResource(server: string, params: { uri: string }): Promise<{ readonly contents: readonly McpResourceContent[] }>;
}

/**
 * The text of one of a skill's resources (resources.json): a file of the skill, or a resource of
 * an MCP server read through `reader` (binary parts are named, not inlined). Cut at 200,000 bytes.
 * An unknown uri is NOT_FOUND naming the uris that exist.
 */
export async function readSkillResource(resources: readonly SkillResource[], uri: string, reader: McpResourceReader): Promise<string> {
  const resource = resources.find((candidate) => candidate.uri === uri);
  if (!resource) {
    const known = resources.map((candidate) => candidate.uri);
    throw new ThinktankError("NOT_FOUND", `no resource ${JSON.stringify(uri)} in this skill${known.length > 0 ? `; it has ${known.join(", ")}` : ""}`);
  }
  if (resource.source.kind === "file") return cap(fs.readFileSync(resource.source.file, "utf8"));
  const result = await reader.readResource(resource.source.server, { uri: resource.source.uri });
  const parts = result.contents.map((content) =>
    typeof content.text === "string" ? content.text : `[binary content ${content.mimeType ?? ""} of ${String(typeof content.blob === "string" ? content.blob.length : 0)} base64 characters]`,
  );
  return cap(parts.join("\n\n"));
}

function cap(text: string): string {
  if (Buffer.byteLength(text) <= maxResourceBytes) return text;
  return `${Buffer.from(text).subarray(0, maxResourceBytes).toString("utf8")}\n[... truncated at ${maxResourceBytes} bytes]`;
}

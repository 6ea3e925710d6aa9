/** An MCP CallToolResult as the CLI receives it. */
export interface ToolResultLike {
  readonly content?: readonly Record<string, unknown>[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
}

/**
 * A tool result as text for a person: text blocks as they are, other blocks as a short bracketed
 * note (type, MIME type, size), and the structured content as JSON when there is no text.
 */
export function renderToolResult(result: ToolResultLike): string {
  const parts: string[] = [];
  let hasText = false;
  for (const block of result.content ?? []) {
    switch (block.type) {
      case "text":
        hasText = true;
        parts.push(String(block.text ?? ""));
        break;
      case "image":
      case "audio":
        parts.push(`[${block.type} ${String(block.mimeType ?? "")}, ${base64Size(block.data)} bytes]`);
        break;
      case "resource": {
        const resource = (block.resource ?? {}) as Record<string, unknown>;
        if (typeof resource.text === "string") {
          hasText = true;
          parts.push(resource.text);
        } else {
          parts.push(`[resource ${String(resource.uri ?? "")} ${String(resource.mimeType ?? "")}, ${base64Size(resource.blob)} bytes]`);
        }
        break;
      }
      case "resource_link":
        parts.push(`[link ${String(block.name ?? "")}: ${String(block.uri ?? "")}]`);
        break;
      default:
        parts.push(`[${String(block.type)} block]`);
    }
  }
  if (!hasText && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent, null, 2));
  const text = parts.join("\n");
  return text.endsWith("\n") || text === "" ? text : `${text}\n`;
}

/** The bytes a result stands for when it is a single binary block (an image, audio, a blob resource). */
export function singleBinaryBlock(result: ToolResultLike): Buffer | undefined {
  const blocks = result.content ?? [];
  if (blocks.length !== 1) return undefined;
  const block = blocks[0] as Record<string, unknown>;
  if ((block.type === "image" || block.type === "audio") && typeof block.data === "string") return Buffer.from(block.data, "base64");
  const resource = block.type === "resource" ? (block.resource as Record<string, unknown> | undefined) : undefined;
  if (resource && typeof resource.blob === "string") return Buffer.from(resource.blob, "base64");
  return undefined;
}

function base64Size(data: unknown): number {
  return typeof data === "string" ? Buffer.byteLength(data, "base64") : 0;
}

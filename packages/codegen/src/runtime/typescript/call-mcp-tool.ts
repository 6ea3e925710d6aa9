// The code API's TypeScript runtime: how a generated wrapper reaches an MCP tool from inside the
// sandbox. It is copied verbatim to <code API>/runtime/call-mcp-tool.ts and has no dependency
// beyond Node's standard library. Protocol (docs/code-api.md): HTTP/1.1 `POST /call` over the Unix
// socket named by THINKTANK_BRIDGE_SOCKET, `authorization: Bearer $THINKTANK_BRIDGE_TOKEN`.
// The sandboxed program's environment is where the bridge is announced, so this file (unlike the
// libraries) reads process.env, at call time.
import http from "node:http";

/** An MCP content block as the bridge relays it (`{ type: "text", text }`, images, resources, ...). */
export interface MCPContentBlock {
  readonly type: string;
  readonly text?: string;
  readonly [key: string]: unknown;
}

/** What the bridge answered for a call that reached the tool. */
export interface MCPToolCallResult {
  /** True when the tool itself reported a failure. */
  readonly isError: boolean;
  /** The tool's structured result, when it sent one. */
  readonly structuredContent?: unknown;
  readonly content: readonly MCPContentBlock[];
}

/** Where the bridge is; each field defaults to its environment variable. */
export interface BridgeOptions {
  /** @default process.env.THINKTANK_BRIDGE_SOCKET */
  readonly socketPath?: string;
  /** @default process.env.THINKTANK_BRIDGE_TOKEN */
  readonly token?: string;
}

/**
 * A failed tool call. `code` is the bridge's error code (UNAUTHORIZED, TOOL_NOT_FOUND,
 * VALIDATION_FAILED, SERVICE_UNAVAILABLE, ...), TOOL_ERROR when the tool reported the failure,
 * or one of BRIDGE_NOT_CONFIGURED, BRIDGE_UNREACHABLE, BRIDGE_PROTOCOL_ERROR from this runtime.
 */
export class MCPToolError extends Error {
  readonly code: string;
  readonly server: string;
  readonly tool: string;
  /** The bridge's HTTP status, when it answered. */
  readonly status: number | undefined;
  /** The tool's content blocks, for TOOL_ERROR. */
  readonly content: readonly MCPContentBlock[] | undefined;

  constructor(code: string, message: string, details: { server: string; tool: string; status?: number; content?: readonly MCPContentBlock[]; cause?: unknown }) {
    super(`${details.server}.${details.tool}: ${message}`, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "MCPToolError";
    this.code = code;
    this.server = details.server;
    this.tool = details.tool;
    this.status = details.status;
    this.content = details.content;
  }
}

/**
 * Calls a tool and returns its value: the structuredContent when the tool sent one; otherwise
 * its content blocks, where a text block holding a JSON object or array is parsed, other text is
 * the string itself, another block (an image, a resource) is the block as is, and several blocks
 * give an array with one such value per block (no block gives null). Throws MCPToolError when
 * the tool reports an error (code TOOL_ERROR) or the bridge refuses the call.
 */
export async function callMCPTool<T = unknown>(server: string, tool: string, args: unknown = {}, options: BridgeOptions = {}): Promise<T> {
  const result = await callMCPToolRaw(server, tool, args, options);
  if (result.isError) {
    const message = result.content.map((block) => (typeof block.text === "string" ? block.text : `[${block.type}]`)).join("\n");
    throw new MCPToolError("TOOL_ERROR", message || "the tool reported an error", { server, tool, content: result.content });
  }
  return toolResultValue(result) as T;
}

/** The value callMCPTool returns for a result (exported for code that uses callMCPToolRaw). */
export function toolResultValue(result: MCPToolCallResult): unknown {
  if (result.structuredContent !== undefined && result.structuredContent !== null) return result.structuredContent;
  const values = result.content.map(blockValue);
  if (values.length === 0) return null;
  return values.length === 1 ? values[0] : values;
}

function blockValue(block: MCPContentBlock): unknown {
  if (block.type !== "text" || typeof block.text !== "string") return block;
  const trimmed = block.text.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      return JSON.parse(trimmed);
    } catch {
      return block.text;
    }
  }
  return block.text;
}

/**
 * Calls a tool and returns the bridge's answer as it came (`isError`, `structuredContent`,
 * `content`), without interpreting it. Throws MCPToolError only when the call did not reach the tool.
 */
export async function callMCPToolRaw(server: string, tool: string, args: unknown = {}, options: BridgeOptions = {}): Promise<MCPToolCallResult> {
  const socketPath = options.socketPath ?? process.env.THINKTANK_BRIDGE_SOCKET;
  const token = options.token ?? process.env.THINKTANK_BRIDGE_TOKEN;
  if (!socketPath || !token) {
    throw new MCPToolError("BRIDGE_NOT_CONFIGURED", "THINKTANK_BRIDGE_SOCKET and THINKTANK_BRIDGE_TOKEN must be set (run the program through execute_code)", { server, tool });
  }
  const { status, body } = await post(socketPath, token, JSON.stringify({ server, tool, arguments: args ?? {} }), server, tool);
  let answer: Record<string, unknown>;
  try {
    answer = JSON.parse(body) as Record<string, unknown>;
  } catch (error) {
    throw new MCPToolError("BRIDGE_PROTOCOL_ERROR", `the bridge answered HTTP ${status} with a body that is not JSON`, { server, tool, status, cause: error });
  }
  if (answer === null || typeof answer !== "object") throw new MCPToolError("BRIDGE_PROTOCOL_ERROR", `the bridge answered HTTP ${status} with a body that is not an object`, { server, tool, status });
  if (answer.ok !== true) {
    const error = (answer.error ?? {}) as { code?: unknown; message?: unknown };
    const code = typeof error.code === "string" ? error.code : "BRIDGE_PROTOCOL_ERROR";
    const message = typeof error.message === "string" ? error.message : `the bridge refused the call with HTTP ${status}`;
    throw new MCPToolError(code, message, { server, tool, status });
  }
  return {
    isError: answer.isError === true,
    ...(answer.structuredContent === undefined ? {} : { structuredContent: answer.structuredContent }),
    content: Array.isArray(answer.content) ? (answer.content as MCPContentBlock[]) : [],
  };
}

function post(socketPath: string, token: string, payload: string, server: string, tool: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        socketPath,
        path: "/call",
        method: "POST",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload), authorization: `Bearer ${token}` },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        response.on("error", (error) => reject(new MCPToolError("BRIDGE_UNREACHABLE", `the bridge connection failed: ${error.message}`, { server, tool, cause: error })));
      },
    );
    request.on("error", (error) => reject(new MCPToolError("BRIDGE_UNREACHABLE", `cannot reach the bridge at ${socketPath}: ${error.message}`, { server, tool, cause: error })));
    request.end(payload);
  });
}

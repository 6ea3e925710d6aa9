import { SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { ConnectTimeoutError, classifyFailure } from "./classify-failure.js";

const withCode = (message: string, code: string, extra: Record<string, unknown> = {}): Error => Object.assign(new Error(message), { code, ...extra });

describe("classifyFailure", () => {
  it.each<[string, unknown, boolean, string | RegExp]>([
    ["a closed connection", new McpError(ErrorCode.ConnectionClosed, "Connection closed"), true, "the connection closed"],
    ["a connect timeout of ours", new ConnectTimeoutError(500), true, "did not finish connecting within 500 ms"],
    ["'Not connected' from the SDK", new Error("Not connected"), true, "the connection closed"],
    ["a refused connection under a fetch error", new TypeError("fetch failed", { cause: withCode("connect ECONNREFUSED 127.0.0.1:1", "ECONNREFUSED") }), true, /^ECONNREFUSED: fetch failed \(connect ECONNREFUSED/],
    ["a refused SSE stream", new SseError(undefined, "TypeError: fetch failed: connect ECONNREFUSED 127.0.0.1:1", {} as never), true, /ECONNREFUSED/],
    ["an HTTP 503", new StreamableHTTPError(503, "Service Unavailable"), true, "HTTP 503: Streamable HTTP error: Service Unavailable"],
    ["an HTTP 429", new StreamableHTTPError(429, "slow down"), true, /^HTTP 429/],
    ["an HTTP 401 (sign-in needed)", new StreamableHTTPError(401, "Unauthorized"), false, "the server asks for sign-in (HTTP 401)"],
    ["a legacy SSE POST refused with 401", new Error("Error POSTing to endpoint (HTTP 401): invalid_token"), false, "the server asks for sign-in (HTTP 401)"],
    ["an SSE 404", new SseError(404, "Non-200 status code (404)", {} as never), false, /^HTTP 404/],
    ["a missing command", withCode("spawn /no/such ENOENT", "ENOENT", { syscall: "spawn /no/such", path: "/no/such" }), false, "command not found (/no/such)"],
    ["a command that is not executable", withCode("spawn /etc/passwd EACCES", "EACCES", { syscall: "spawn /etc/passwd", path: "/etc/passwd" }), false, "command not executable (/etc/passwd)"],
    ["a protocol error", new McpError(ErrorCode.InvalidParams, "bad params"), false, "MCP error -32602: bad params"],
    ["a server's own McpError, prefixed twice", new McpError(ErrorCode.InternalError, "MCP error -32603: Failed to generate chart"), false, "MCP error -32603: Failed to generate chart"],
    ["anything else", new Error("something odd"), false, "something odd"],
  ])("%s", (_label, error, transient, reason) => {
    const result = classifyFailure(error);
    expect(result.transient).toBe(transient);
    if (typeof reason === "string") expect(result.reason).toBe(reason);
    else expect(result.reason).toMatch(reason);
  });

  it("treats HTTP 400/404 on an established session as a lost session worth a new one", () => {
    expect(classifyFailure(new StreamableHTTPError(404, "Session not found"), "session")).toEqual({ transient: true, reason: "the server no longer knows this session (HTTP 404)" });
    expect(classifyFailure(new StreamableHTTPError(400, "No valid session ID"), "session").transient).toBe(true);
    expect(classifyFailure(new StreamableHTTPError(404, "Not found"), "connect").transient).toBe(false);
    expect(classifyFailure(new StreamableHTTPError(403, "Forbidden"), "session").transient).toBe(false);
  });

  it("masks credentials that ride in error messages", () => {
    const result = classifyFailure(new Error("request to https://user:hunter2@api.example.com failed with Bearer abcdefghijklmnop"));
    expect(result.reason).not.toContain("hunter2");
    expect(result.reason).not.toContain("abcdefghijklmnop");
  });
});

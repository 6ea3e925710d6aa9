import type http from "node:http";
import { bridgeFailure, type BridgeFailure } from "./bridge-errors.js";

// The bridge's HTTP plumbing: reading and parsing a call, writing its answer.

export type ParsedCall = { ok: true; server: string; tool: string; args: Record<string, unknown> } | { ok: false; label: string; failure: BridgeFailure };

export function parseCall(text: string): ParsedCall {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, label: "(invalid request)", failure: bridgeFailure("INVALID_JSON", `the request body is not JSON: ${(error as Error).message}`) };
  }
  if (!isObject(value)) return { ok: false, label: "(invalid request)", failure: bridgeFailure("BAD_REQUEST", "expected a JSON object { server, tool, arguments }") };
  const { server, tool, arguments: args = {} } = value;
  const label = typeof server === "string" && typeof tool === "string" ? `${server}.${tool}` : "(invalid request)";
  if (typeof server !== "string" || server === "") return { ok: false, label, failure: bridgeFailure("BAD_REQUEST", `'server' must be a non-empty string, got ${JSON.stringify(server)}`) };
  if (typeof tool !== "string" || tool === "") return { ok: false, label, failure: bridgeFailure("BAD_REQUEST", `'tool' must be a non-empty string, got ${JSON.stringify(tool)}`) };
  if (!isObject(args)) return { ok: false, label, failure: bridgeFailure("BAD_REQUEST", `'arguments' must be a JSON object, got ${Array.isArray(args) ? "an array" : JSON.stringify(args)}`) };
  return { ok: true, server, tool, args };
}

export function readBody(request: http.IncomingMessage, maxBytes: number): Promise<{ ok: true; text: string } | { ok: false; failure: BridgeFailure }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    request.on("data", (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > maxBytes) {
        // Answer now; the rest of the body is read and dropped so the client can finish writing.
        done = true;
        resolve({ ok: false, failure: bridgeFailure("PAYLOAD_TOO_LARGE", `the request body is larger than ${maxBytes} bytes`) });
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => {
      if (done) return;
      done = true;
      resolve({ ok: true, text: Buffer.concat(chunks).toString("utf8") });
    });
    request.on("error", (error) => {
      if (done) return;
      done = true;
      resolve({ ok: false, failure: bridgeFailure("BAD_REQUEST", `the request could not be read: ${error.message}`) });
    });
  });
}

export function send(response: http.ServerResponse, failure: BridgeFailure): void {
  sendJson(response, failure.status, failureBody(failure));
}

export function failureBody(failure: BridgeFailure): Record<string, unknown> {
  return { ok: false, error: { code: failure.code, message: failure.message, ...(failure.problems ? { problems: failure.problems } : {}) } };
}

/** What a call gets once the execution has paused for a person's answer (the program is being stopped). */
export function pausedFailure(): BridgeFailure {
  return bridgeFailure("MCP_INPUT_REQUIRED", "the execution paused to ask the user for input; the program runs again when they answer");
}

export function sendJson(response: http.ServerResponse, status: number, body: unknown): void {
  if (response.writableEnded || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  response.end(text);
}

export function firstText(content: readonly unknown[]): string {
  const texts = content.filter((block): block is { type: "text"; text: string } => isObject(block) && block.type === "text" && typeof block.text === "string").map((block) => block.text);
  const text = texts.join("\n").trim() || "the tool reported an error";
  return text.length > 300 ? `${text.slice(0, 300)}...` : text;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

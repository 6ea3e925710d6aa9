import { redactSecrets } from "@thinktank/core";
import { InsufficientScopeError, ProtocolError, SdkError, SdkErrorCode, UnauthorizedError } from "@modelcontextprotocol/client";
import { ErrorCode as JsonRpcErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { ProtocolUnsupportedError } from "./protocol-era.js";

/** What went wrong talking to a server, and whether trying again (after a reconnect) may help. */
export interface FailureClass {
  readonly transient: boolean;
  /** One line for a status or an error message; never holds a resolved secret. */
  readonly reason: string;
  /** The server did not answer in time (our connect timer, or a request timeout), as opposed to refusing or erroring. */
  readonly timeout?: true;
  /** The server asks for sign-in (HTTP 401): not a failure to retry, a state to show until someone signs in. */
  readonly needsAuth?: true;
  /** The server speaks neither protocol era (ProtocolUnsupportedError): what was tried, and what it offers. */
  readonly protocolUnsupported?: { readonly versionsTried: readonly string[]; readonly versionsOffered?: readonly string[] };
}

/** A request that ran out of its time, on either SDK (v1 McpError -32001, v2 SdkError REQUEST_TIMEOUT). */
export function isRequestTimeout(error: unknown): boolean {
  return (error instanceof McpError && error.code === JsonRpcErrorCode.RequestTimeout) || (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout);
}

/** Thrown by our own connect timer (the SDK's initialize timeout does not cover spawning or the SSE handshake). */
export class ConnectTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`did not finish connecting within ${timeoutMs} ms`);
    this.name = "ConnectTimeoutError";
  }
}

const transientSystemCodes = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ECONNABORTED", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN", "UND_ERR_SOCKET", "UND_ERR_CONNECT_TIMEOUT", "UND_ERR_CLOSED"]);
/**
 * A server built on the MCP SDK that throws an McpError sends its message, which already starts
 * "MCP error <code>: ", and the client's McpError adds the prefix again; one is enough.
 */
const repeatedMcpErrorPrefix = /^(MCP error (-?\d+): )(?:MCP error \2: )+/;
const permanentSpawnCodes: Readonly<Record<string, string>> = { ENOENT: "command not found", EACCES: "command not executable", ENOTDIR: "command path is not valid" };

/**
 * Sorts a failure into transient (the connection closed, the process exited, the host refused,
 * a connect timed out, an HTTP 5xx/429) or permanent (the command does not exist, HTTP 4xx, a
 * protocol error). Only transient failures are retried. On an established session (`phase`
 * "session"), an HTTP 400/404 from the transport means the server no longer knows the session
 * (it restarted): that is transient too, and a new session fixes it.
 */
export function classifyFailure(error: unknown, phase: "connect" | "session" = "connect"): FailureClass {
  if (error instanceof ConnectTimeoutError) return { transient: true, reason: error.message, timeout: true };
  if (error instanceof ProtocolUnsupportedError) {
    return { transient: false, reason: error.message, protocolUnsupported: { versionsTried: error.versionsTried, ...(error.versionsOffered ? { versionsOffered: error.versionsOffered } : {}) } };
  }
  // The v2 SDK (2026-07-28 sessions): its typed errors, sorted as the v1 ones below are.
  if (error instanceof SdkError && !(typeof (error as { status?: unknown }).status === "number")) {
    if (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected) return { transient: true, reason: "the connection closed" };
    if (error.code === SdkErrorCode.RequestTimeout) return { transient: true, reason: "a request timed out", timeout: true };
  }
  if (error instanceof ProtocolError) return { transient: false, reason: describe(error) };
  // The v2 transport reads 401 and 403 insufficient_scope challenges itself.
  if (error instanceof UnauthorizedError) return { transient: false, needsAuth: true, reason: "the server asks for sign-in (HTTP 401)" };
  if (error instanceof InsufficientScopeError) return { transient: false, reason: `HTTP 403: ${describe(error)}` };
  if (error instanceof McpError) {
    if (error.code === JsonRpcErrorCode.ConnectionClosed) return { transient: true, reason: "the connection closed" };
    if (error.code === JsonRpcErrorCode.RequestTimeout) return { transient: true, reason: "a request timed out", timeout: true };
    return { transient: false, reason: describe(error).replace(repeatedMcpErrorPrefix, "$1") };
  }
  const codes = errorCodesIn(error);
  const spawnProblem = codes.map((code) => permanentSpawnCodes[code]).find(Boolean);
  const syscall = (error as { syscall?: unknown } | null)?.syscall;
  if (spawnProblem && typeof syscall === "string" && syscall.startsWith("spawn")) {
    return { transient: false, reason: `${spawnProblem} (${String((error as { path?: unknown }).path ?? "")})` };
  }
  const systemCode = codes.find((code) => transientSystemCodes.has(code));
  if (systemCode) return { transient: true, reason: `${systemCode}: ${describe(error)}` };
  const status = httpStatusOf(error);
  if (status !== undefined) {
    if (status === 401) return { transient: false, needsAuth: true, reason: "the server asks for sign-in (HTTP 401)" };
    if (phase === "session" && (status === 400 || status === 404)) return { transient: true, reason: `the server no longer knows this session (HTTP ${status})` };
    const transient = status >= 500 || status === 408 || status === 429;
    return { transient, reason: `HTTP ${status}: ${describe(error)}` };
  }
  if (error instanceof Error && /not connected/i.test(error.message)) return { transient: true, reason: "the connection closed" };
  if (error instanceof Error && /ECONNREFUSED|ECONNRESET|socket hang up|other side closed/i.test(error.message)) {
    return { transient: true, reason: describe(error) };
  }
  return { transient: false, reason: describe(error) };
}

function errorCodesIn(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === "object"; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
    current = (current as { cause?: unknown }).cause;
  }
  return codes;
}

function httpStatusOf(error: unknown): number | undefined {
  const name = (error as { name?: unknown; constructor?: { name?: unknown } } | null)?.constructor?.name;
  const code = (error as { code?: unknown } | null)?.code;
  if ((name === "StreamableHTTPError" || name === "SseError") && typeof code === "number" && code >= 100 && code < 600) return code;
  // The v2 SDK's HTTP errors carry the status in their data.
  const status = (error as { status?: unknown } | null)?.status;
  if (error instanceof SdkError && typeof status === "number" && status >= 100 && status < 600) return status;
  // The legacy SSE transport reports a refused POST as a plain Error naming the status.
  const posted = error instanceof Error ? /^Error POSTing to endpoint \(HTTP (\d{3})\)/.exec(error.message) : null;
  return posted ? Number(posted[1]) : undefined;
}

/** One line about an error, with credentials that may ride in messages (Bearer tokens, URL passwords) masked. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return redactSecrets(String(error));
  const cause = error.cause instanceof Error && !error.message.includes(error.cause.message) ? ` (${error.cause.message})` : "";
  return redactSecrets(`${error.message}${cause}`.replace(/\s+/g, " ").slice(0, 300));
}

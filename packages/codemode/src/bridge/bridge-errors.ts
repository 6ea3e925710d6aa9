import { httpStatusFor, isErrorCode, isThinktankError } from "@thinktank/core";
import type { ErrorCode } from "@thinktank/core";

/** A bridge-level failure: the HTTP status, and the `{ ok: false, error }` body the runtime reads. */
export interface BridgeFailure {
  readonly status: number;
  readonly code: ErrorCode;
  readonly message: string;
  readonly problems?: readonly string[];
}

export function bridgeFailure(code: ErrorCode, message: string, problems?: readonly string[]): BridgeFailure {
  return { status: httpStatusFor(code), code, message, ...(problems ? { problems } : {}) };
}

/**
 * Maps whatever a tool source threw to a bridge failure: a ThinktankError keeps its code (503 for
 * an unavailable server, 504 for a call timeout...); anything else is the source's fault, 502.
 */
export function failureFromError(error: unknown): BridgeFailure {
  if (isThinktankError(error)) {
    const problems = error.details?.problems;
    return bridgeFailure(error.code, error.message, Array.isArray(problems) ? problems.map(String) : undefined);
  }
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (isErrorCode(code)) return bridgeFailure(code, message);
  return bridgeFailure("MCP_PROTOCOL_ERROR", `the tool call failed: ${message}`);
}

import type { ErrorCode } from "./error-codes.js";

/** What untrusted boundaries (sandbox, model output, MCP responses) return instead of throwing. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: { code: ErrorCode; message: string } };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function fail<T = never>(code: ErrorCode, message: string): Result<T> {
  return { ok: false, error: { code, message } };
}

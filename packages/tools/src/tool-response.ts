import type { ErrorCode } from "@thinktank/core";

/** Why a tool call failed: a stable code the caller (or model) can act on, and a readable message. */
export interface ToolError {
  readonly code: ErrorCode;
  readonly message: string;
  /** Structured context: the problems of a schema check, a script's exit code and stderr tail, ... */
  readonly details?: Readonly<Record<string, unknown>>;
}

/**
 * The envelope every tool call answers with, registered or built-in: never a thrown error.
 * `data` is the script's JSON output (validated against the tool's output_schema).
 */
export type ToolResponse = { readonly status: "success"; readonly data: unknown } | { readonly status: "error"; readonly error: ToolError };

export function toolSuccess(data: unknown): ToolResponse {
  return { status: "success", data };
}

export function toolFailure(code: ErrorCode, message: string, details?: Record<string, unknown>): ToolResponse {
  return { status: "error", error: details ? { code, message, details } : { code, message } };
}

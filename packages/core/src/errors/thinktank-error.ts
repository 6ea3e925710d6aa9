import type { ErrorCode } from "./error-codes.js";

/**
 * The base error of every package. `code` is what clients match on; `details` carries
 * structured context (the list of validation problems, the path of a bad field, ...).
 */
export class ThinktankError extends Error {
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super(message, { cause: options.cause });
    this.name = "ThinktankError";
    this.code = code;
    this.details = options.details;
  }

  /** The JSON body every route answers with: `{ code, message, ...details }`. */
  toJSON(): { code: ErrorCode; message: string; details?: Record<string, unknown> } {
    return this.details ? { code: this.code, message: this.message, details: { ...this.details } } : { code: this.code, message: this.message };
  }
}

export function isThinktankError(error: unknown): error is ThinktankError {
  return error instanceof ThinktankError;
}

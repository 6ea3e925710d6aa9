import { codeLanguages, type CodeLanguage } from "../code-mode-types.js";

export interface ExecutionBounds {
  /** config.code_execution.timeout_seconds */
  readonly defaultTimeoutSeconds: number;
  /** config.code_execution.max_timeout_seconds */
  readonly maxTimeoutSeconds: number;
  /** Largest program accepted, in bytes. */
  readonly maxCodeBytes: number;
}

export type ValidExecution = { ok: true; code: string; language: CodeLanguage; timeoutMs: number } | { ok: false; message: string };

/**
 * Checks execute_code's input (it comes from a model: anything may arrive) and applies the
 * defaults. A timeout above max_timeout_seconds is capped, not refused: the model asked for
 * "long", and the longest allowed is the closest honest answer.
 */
export function validateExecuteInput(input: unknown, bounds: ExecutionBounds): ValidExecution {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return { ok: false, message: "expected an object { code, language?, timeout? }" };
  const { code, language = "typescript", timeout } = input as Record<string, unknown>;
  if (typeof code !== "string" || code.trim() === "") return { ok: false, message: `code: expected the program's source text, got ${describe(code)}` };
  const size = Buffer.byteLength(code);
  if (size > bounds.maxCodeBytes) return { ok: false, message: `code: ${size} bytes is more than the ${bounds.maxCodeBytes} allowed; keep programs short and read data through tools or files` };
  if (typeof language !== "string" || !codeLanguages.includes(language as CodeLanguage)) {
    return { ok: false, message: `language: expected one of ${codeLanguages.join(", ")}, got ${describe(language)}` };
  }
  let seconds = bounds.defaultTimeoutSeconds;
  if (timeout !== undefined && timeout !== null) {
    if (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout <= 0) return { ok: false, message: `timeout: expected a positive number of seconds, got ${describe(timeout)}` };
    seconds = Math.min(timeout, bounds.maxTimeoutSeconds);
  }
  return { ok: true, code, language: language as CodeLanguage, timeoutMs: Math.round(seconds * 1000) };
}

function describe(value: unknown): string {
  if (typeof value === "string") return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value);
  if (value === undefined) return "nothing";
  return JSON.stringify(value) ?? typeof value;
}

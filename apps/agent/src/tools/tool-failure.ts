import { isThinktankError } from "@thinktank/core";

/**
 * Runs a tool's work and turns a ThinktankError into an Error whose message starts with its code,
 * so the model reads `PATH_TRAVERSAL: ...` in the error tool message (ToolNode reports the message).
 */
export async function withCodedErrors<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isThinktankError(error)) throw new Error(`${error.code}: ${error.message}`, { cause: error });
    throw error;
  }
}

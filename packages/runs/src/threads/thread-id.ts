import { ThinktankError } from "@thinktank/core";

/**
 * The one rule for a thread id, on every route (body or path): 1-100 letters, digits, '_' or '-',
 * starting with a letter or digit. UUIDs fit. Such an id is a safe folder name (the sandbox
 * workspace and user-data folders are named after it) and needs no escaping in a URL or a header.
 * The router passes longer path segments on (routerOptions.maxParamLength), so a path id over
 * 100 characters gets this rule's answer too, not the router's 414.
 */
const threadIdPattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

/** Returns `threadId` when it follows the rule; otherwise throws VALIDATION_FAILED (400), before anything is read or stored. */
export function checkThreadId(threadId: unknown): string {
  if (typeof threadId === "string" && threadIdPattern.test(threadId)) return threadId;
  const shown = typeof threadId === "string" && threadId.length > 40 ? `${JSON.stringify(threadId.slice(0, 40))}… (${threadId.length} characters)` : JSON.stringify(threadId);
  throw new ThinktankError("VALIDATION_FAILED", `thread id: expected 1-100 letters, digits, '_' or '-', starting with a letter or digit; got ${shown}`, { details: { field: "thread_id" } });
}

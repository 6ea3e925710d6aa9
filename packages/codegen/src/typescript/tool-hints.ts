import { schemaObject } from "../schema/json-schema.js";

/** The MCP tool annotations worth a sentence in a wrapper's doc: "Read-only.", "Destructive.", ... */
export function toolHints(annotations: unknown): string[] {
  const hints = schemaObject(annotations);
  if (!hints) return [];
  const sentences: string[] = [];
  if (hints.readOnlyHint === true) sentences.push("Read-only: it does not change anything.");
  if (hints.destructiveHint === true && hints.readOnlyHint !== true) sentences.push("Destructive: it may delete or overwrite data.");
  if (hints.idempotentHint === true) sentences.push("Idempotent: calling it twice with the same arguments has no further effect.");
  return sentences;
}

/**
 * Turns values that hold LangChain objects into plain JSON the way LangGraph's API does:
 * a message becomes `{ ...fields, type: "ai" | "human" | "tool" | ... }`. Functions and
 * undefined vanish; the result is safe to store and to send.
 */
export function toPlainJson<T = unknown>(value: unknown): T {
  return JSON.parse(toJsonText(value)) as T;
}

/** The JSON text of `toPlainJson(value)` in one pass (what a stream event sends); `null` for undefined. */
export function toJsonText(value: unknown): string {
  const text = JSON.stringify(value, function (this: Record<string, unknown>, key: string, current: unknown) {
    const raw = this[key];
    if (raw !== null && typeof raw === "object" && "toDict" in raw && typeof raw.toDict === "function") {
      const { type, data } = (raw as { toDict(): { type: string; data: Record<string, unknown> } }).toDict();
      return { ...data, type: plainType(type) };
    }
    return current;
  }) as string | undefined;
  return text ?? "null";
}

/** Streamed chunks report their class ("AIMessageChunk"); clients expect the message type ("ai"). */
function plainType(type: string): string {
  const chunkTypes: Record<string, string> = { AIMessageChunk: "ai", HumanMessageChunk: "human", ToolMessageChunk: "tool", SystemMessageChunk: "system" };
  return chunkTypes[type] ?? type;
}

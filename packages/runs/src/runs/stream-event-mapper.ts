import type { BaseMessageChunk } from "@langchain/core/messages";
import type { StreamMode } from "@langchain/langgraph";
import { toJsonText } from "../to-plain-json.js";
import { publicStreamChunk, publicStreamEvent } from "./public-stream-chunk.js";

/** Stream modes a run may ask for (LangGraph Platform names). */
export const supportedStreamModes = ["values", "updates", "messages", "messages-tuple", "custom", "debug", "tasks", "checkpoints", "events"] as const;
export type ApiStreamMode = (typeof supportedStreamModes)[number];

interface MappedEvent {
  readonly event: string;
  /** The event's data as JSON text (serialized once, here). */
  readonly json: string;
}

/**
 * Maps LangGraph's `[mode, chunk]` stream to the API's SSE events:
 * - `messages-tuple` → `messages` events `[message chunk, metadata]`
 * - `messages` (the older form) → `messages/metadata`, `messages/partial` (the message so far)
 *   and `messages/complete` (each finished message once)
 * - `events` → an `events` event per LangChain streamEvents (v2) event of the run, nested runs
 *   included (the graph's own stream chunks are mapped by the rules here instead);
 * - every other mode → an event of its own name.
 *
 * A chunk from a subgraph (a run streamed with `stream_subgraphs`: a sub-agent's graph) carries its
 * namespace (`["tools:<task id>", ...]`): its event is named `<event>|<namespace parts joined by |>`
 * as the LangGraph Platform API names it (`values|tools:<task id>`, `messages|tools:<task id>`).
 * The older `messages` form (`messages/partial`, `messages/complete`) has no namespaced names: it
 * stays the root graph's (the lead's).
 */
export class StreamEventMapper {
  readonly #requested: ReadonlySet<ApiStreamMode>;
  readonly #partial = new Map<string, BaseMessageChunk>();
  readonly #completed = new Set<string>();

  constructor(requested: readonly ApiStreamMode[]) {
    this.#requested = new Set(requested);
  }

  /** Whether the run must go through streamEvents (the `events` mode). */
  wantsEvents(): boolean {
    return this.#requested.has("events");
  }

  /** The modes to ask LangGraph for (never empty: `events` alone still needs the graph's stream). */
  libraryModes(): StreamMode[] {
    const modes = new Set<StreamMode>();
    for (const mode of this.#requested) {
      if (mode === "events") continue;
      if (mode === "messages-tuple") modes.add("messages");
      else if (mode === "messages") {
        modes.add("messages");
        modes.add("values");
      } else modes.add(mode);
    }
    if (modes.size === 0) modes.add("values");
    return [...modes];
  }

  /** One streamEvents event as the `events` mode sends it. */
  event(event: unknown): MappedEvent {
    return { event: "events", json: toJsonText(publicStreamEvent(event)) };
  }

  /** The events of one `[mode, chunk]` of the graph's stream; `namespace`: the subgraph's it came from (empty: the root graph's). */
  map(mode: string, chunk: unknown, namespace: readonly string[] = []): MappedEvent[] {
    const events: MappedEvent[] = [];
    const root = namespace.length === 0;
    const name = (event: string) => (root ? event : `${event}|${namespace.join("|")}`);
    if (mode === "messages") {
      const [message, metadata] = publicStreamChunk(mode, chunk) as [BaseMessageChunk, Record<string, unknown>];
      if (this.#requested.has("messages-tuple")) events.push({ event: name("messages"), json: toJsonText([message, metadata]) });
      if (root && this.#requested.has("messages")) events.push(...this.#partialMessage(message, metadata));
      return events;
    }
    if (root && mode === "values" && this.#requested.has("messages")) events.push(...this.#completeMessages(chunk));
    // Configs and metadata without private entries (the run tracker, LangGraph's internals), in every mode: public-stream-chunk.ts.
    if (this.#requested.has(mode as ApiStreamMode)) events.push({ event: name(mode), json: toJsonText(publicStreamChunk(mode, chunk)) });
    return events;
  }

  #partialMessage(message: BaseMessageChunk, metadata: Record<string, unknown>): MappedEvent[] {
    const id = message.id;
    if (!id) return [];
    const events: MappedEvent[] = [];
    const previous = this.#partial.get(id);
    if (!previous) events.push({ event: "messages/metadata", json: toJsonText({ [id]: { metadata } }) });
    const merged = previous ? previous.concat(message) : message;
    this.#partial.set(id, merged);
    events.push({ event: "messages/partial", json: toJsonText([merged]) });
    return events;
  }

  #completeMessages(values: unknown): MappedEvent[] {
    const messages = (values as { messages?: unknown } | null)?.messages;
    if (!Array.isArray(messages)) return [];
    const fresh = messages.filter((message: { id?: string }) => typeof message?.id === "string" && !this.#completed.has(message.id));
    for (const message of fresh) this.#completed.add((message as { id: string }).id);
    return fresh.length > 0 ? [{ event: "messages/complete", json: toJsonText(fresh) }] : [];
  }
}

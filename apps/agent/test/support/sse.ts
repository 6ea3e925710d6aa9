/** One server-sent event as the agent writes it. */
export interface SseEvent {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: unknown;
}

export interface SseAnswer {
  readonly status: number;
  readonly headers: Headers;
  /** The events when the answer is a stream; else empty (see `body`). */
  readonly events: SseEvent[];
  /** The parsed JSON body of an answer that is not a stream. */
  readonly body: unknown;
}

/** Parses a whole text/event-stream body (comment lines such as heartbeats are skipped). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split("\n\n")) {
    let id: string | undefined;
    let event = "message";
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("id: ")) id = line.slice(4);
      else if (line.startsWith("event: ")) event = line.slice(7);
      else if (line.startsWith("data: ")) data.push(line.slice(6));
    }
    if (data.length > 0) events.push({ id, event, data: JSON.parse(data.join("\n")) });
  }
  return events;
}

/** A request whose answer is read to its end: a stream's events, or a JSON body. */
export async function requestSse(url: string, init: { method?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<SseAnswer> {
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: init.body === undefined ? {} : { "content-type": "application/json" },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: init.signal ?? AbortSignal.timeout(60_000),
  });
  const text = await response.text();
  const stream = response.headers.get("content-type")?.startsWith("text/event-stream") ?? false;
  return { status: response.status, headers: response.headers, events: stream ? parseSse(text) : [], body: stream || text === "" ? undefined : JSON.parse(text) };
}

/**
 * What must be the same in every stream of one scripted run: each event's name, for a `messages`
 * event the message's type and text, for `values` the number of messages (ids differ per run).
 */
export function streamSignature(events: readonly SseEvent[]): string[] {
  return events.map((event) => {
    if (event.event === "messages") {
      const [message] = event.data as [{ type: string; content: unknown }];
      return `messages ${message.type} ${JSON.stringify(message.content)}`;
    }
    if (event.event === "values") return `values ${(event.data as { messages?: unknown[] }).messages?.length ?? 0}`;
    return event.event;
  });
}

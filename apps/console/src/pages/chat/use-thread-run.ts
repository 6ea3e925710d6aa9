// One thread's state and its runs: the state as the agent keeps it (messages, artifacts, sub-agents'
// records, pending interrupts), and while a run streams, its answer as it arrives (`messages-tuple`
// chunks, `values` snapshots), sub-agents' included (`stream_subgraphs`: their events arrive named
// `<mode>|tools:<task call id>`, the namespace the agent gives each `task` call).
import type { Client } from "@langchain/langgraph-sdk";
import { useCallback, useEffect, useRef, useState } from "react";
import { agentError } from "../../api/agent-client.js";
import { readInterrupts, readValues, type ChatMessage, type PendingInput, type ThreadValues } from "./chat-model.js";
import { loadTurnTokens, type RunTokens } from "./run-tokens.js";

/** Text streamed so far per message id, per namespace ("" for the lead, else the `task` call id). */
export type Partials = ReadonlyMap<string, ReadonlyMap<string, string>>;

export interface ThreadRun {
  readonly values: ThreadValues;
  readonly pending: readonly PendingInput[];
  /** Streamed text of messages not yet in `values` (or in a sub-agent's transcript). */
  readonly partials: Partials;
  /** Each sub-agent's messages as its run streamed them, by `task` call id (this page's session only: the thread keeps only its answer). */
  readonly transcripts: ReadonlyMap<string, readonly ChatMessage[]>;
  /** What each turn's runs spent (the agent's run figures), by the order of turns that start with a message. */
  readonly turnTokens: readonly (RunTokens | undefined)[];
  readonly loading: boolean;
  readonly running: boolean;
  readonly error: unknown;
  send(text: string): Promise<void>;
  resume(value: unknown): Promise<void>;
  cancel(): void;
  reload(): Promise<void>;
}

const empty: ThreadValues = { messages: [], artifacts: [], delegations: [] };

export function useThreadRun(client: Client, threadId: string): ThreadRun {
  const [values, setValues] = useState<ThreadValues>(empty);
  const [pending, setPending] = useState<readonly PendingInput[]>([]);
  const [partials, setPartials] = useState<Partials>(new Map());
  const [transcripts, setTranscripts] = useState<ReadonlyMap<string, readonly ChatMessage[]>>(new Map());
  const [turnTokens, setTurnTokens] = useState<readonly (RunTokens | undefined)[]>([]);
  const [loading, setLoading] = useState(true);
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<unknown>();
  const abort = useRef<AbortController | undefined>(undefined);
  const runId = useRef<string | undefined>(undefined);

  const reload = useCallback(async () => {
    // Figures are a detail: without them the answers show what the model reported.
    void loadTurnTokens(client, threadId).then(setTurnTokens, () => undefined);
    try {
      const state = await client.threads.getState(threadId);
      setValues(readValues(state.values));
      setPending(readInterrupts((state as { interrupts?: unknown }).interrupts));
      setError(undefined);
    } catch (failure) {
      setError(agentError(failure));
    } finally {
      setLoading(false);
    }
  }, [client, threadId]);

  useEffect(() => {
    setLoading(true);
    setValues(empty);
    setPending([]);
    setPartials(new Map());
    setTranscripts(new Map());
    setTurnTokens([]);
    void reload();
    return () => abort.current?.abort();
  }, [reload]);

  /** Follows a run's events: a new run's (`payload`), or one already running (`join`: its id). */
  const stream = useCallback(
    async (payload: { input?: unknown; command?: { resume: unknown } } | { join: string }) => {
      const controller = new AbortController();
      abort.current = controller;
      runId.current = "join" in payload ? payload.join : undefined;
      setRunning(true);
      setError(undefined);
      setPending([]);
      const painted = new Set<string>();
      let lastPaint = 0;
      try {
        const events =
          "join" in payload
            ? client.runs.joinStream(threadId, payload.join, { signal: controller.signal })
            : client.runs.stream(threadId, "lead_agent", { ...payload, streamMode: ["messages-tuple", "values"], streamSubgraphs: true, multitaskStrategy: "reject", signal: controller.signal } as never);
        for await (const { event, data } of events as AsyncIterable<{ event: string; data: unknown }>) {
          if (event === "metadata") runId.current = (data as { run_id?: string } | null)?.run_id;
          const [mode, ...path] = event.split("|");
          const namespace = path.length > 0 ? taskCallOf(path.at(-1) as string) : "";
          if (mode === "values" && namespace === "") {
            const next = readValues(data);
            setValues(next);
            setPartials((current) => withoutKnown(current, "", next.messages));
          } else if (mode === "values") {
            const messages = readValues(data).messages;
            setTranscripts((current) => new Map(current).set(namespace, messages));
            setPartials((current) => withoutKnown(current, namespace, messages));
          } else if (mode === "messages") {
            const chunk = Array.isArray(data) ? (data[0] as Partial<ChatMessage> | undefined) : undefined;
            if (chunk?.type === "ai" && typeof chunk.id === "string" && typeof chunk.content === "string" && chunk.content !== "") {
              const { id, content } = chunk;
              setPartials((current) => appendPartial(current, namespace, id, content));
              // Events that arrived together are read without a break, so React would paint them
              // once; the first text of each message, and then a frame's worth at a time, is painted
              // as it comes.
              if (!painted.has(id) || performance.now() - lastPaint > 50) {
                painted.add(id);
                await afterPaint();
                lastPaint = performance.now();
              }
            }
          } else if (mode === "error") {
            const described = data as { error?: string; message?: string };
            setError(agentError(new Error(`HTTP 500: ${JSON.stringify({ code: described.error, message: described.message })}`)));
          }
        }
      } catch (failure) {
        if (!controller.signal.aborted) setError(agentError(failure));
      } finally {
        abort.current = undefined;
        runId.current = undefined;
        setRunning(false);
        setPartials(new Map());
        await reload();
      }
    },
    [client, threadId, reload],
  );

  // A run already going when the thread opens (started here before, or elsewhere): follow it.
  useEffect(() => {
    let gone = false;
    client.runs.list(threadId, { status: "running", limit: 1 }).then(
      (runs) => {
        const running = runs[0];
        if (!gone && running && !abort.current) void stream({ join: running.run_id });
      },
      () => undefined,
    );
    return () => {
      gone = true;
    };
  }, [client, threadId, stream]);

  const send = useCallback((text: string) => stream({ input: { messages: [{ type: "human", content: text }] } }), [stream]);
  const resume = useCallback((value: unknown) => stream({ command: { resume: value } }), [stream]);
  // Stop cancels the run itself (leaving the page only stops following it: runs continue on disconnect).
  const cancel = useCallback(() => {
    const id = runId.current;
    if (id) client.runs.cancel(threadId, id).catch((failure: unknown) => setError(agentError(failure)));
    else abort.current?.abort();
  }, [client, threadId]);

  return { values, pending, partials, transcripts, turnTokens, loading, running, error, send, resume, cancel, reload };
}

/**
 * Resolves once the browser has painted what is rendered now (a frame, then the task after it); at
 * once in a hidden tab, and after 100 ms at most, since a hidden tab runs no animation frames.
 */
function afterPaint(): Promise<void> {
  if (document.visibilityState === "hidden") return Promise.resolve();
  return new Promise((resolve) => {
    const fallback = setTimeout(resolve, 100);
    requestAnimationFrame(() =>
      setTimeout(() => {
        clearTimeout(fallback);
        resolve();
      }, 0),
    );
  });
}

/** `tools:<task call id>` → the call id (the agent names a sub-agent's namespace after its `task` call). */
function taskCallOf(segment: string): string {
  return segment.startsWith("tools:") ? segment.slice("tools:".length) : segment;
}

function appendPartial(current: Partials, namespace: string, id: string, text: string): Partials {
  const next = new Map(current);
  const inner = new Map(next.get(namespace) ?? []);
  inner.set(id, (inner.get(id) ?? "") + text);
  next.set(namespace, inner);
  return next;
}

/** Drops streamed text of messages a snapshot now holds whole. */
function withoutKnown(current: Partials, namespace: string, messages: readonly ChatMessage[]): Partials {
  const inner = current.get(namespace);
  if (!inner) return current;
  const known = new Set(messages.map((message) => message.id));
  const kept = new Map([...inner].filter(([id]) => !known.has(id)));
  if (kept.size === inner.size) return current;
  return new Map(current).set(namespace, kept);
}

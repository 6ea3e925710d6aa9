// One thread: its turns, the streaming answer, a pending question or approval answered in place,
// the composer (messages, slash commands, uploads) and the thread's files.
import type { Client } from "@langchain/langgraph-sdk";
import { useEffect, useMemo, useRef, useState } from "react";
import { useLocation, useNavigate } from "react-router";
import { ErrorNote } from "../../components/error-note.js";
import { toTurns, type Turn } from "./chat-model.js";
import { Composer } from "./composer.js";
import { PendingInputForm } from "./pending-input-form.js";
import type { SlashCommand } from "./slash-commands.js";
import { ThreadFiles, uploadFiles } from "./thread-files.js";
import { TurnContextValue, TurnView } from "./turn-view.js";
import { useThreadRun } from "./use-thread-run.js";

export interface ThreadViewProps {
  readonly client: Client;
  readonly threadId: string;
  readonly title: string;
  readonly commands: readonly SlashCommand[];
  /** Called when a run ends (the list's order and titles may have changed). */
  readonly onActivity: () => void;
}

/** The position of a turn among the turns that start with a message (runs start turns that way). */
function humanIndex(turns: readonly Turn[], index: number): number {
  return turns.slice(0, index).filter((turn) => turn.human).length;
}

export function ThreadView({ client, threadId, title, commands, onActivity }: ThreadViewProps) {
  const run = useThreadRun(client, threadId);
  const location = useLocation();
  const navigate = useNavigate();
  const [uploadError, setUploadError] = useState<unknown>();
  const [uploadNote, setUploadNote] = useState("");
  const [revision, setRevision] = useState(0);
  const started = useRef<string | undefined>(undefined);

  // A message written before the thread existed (the new-thread page made it, then came here).
  useEffect(() => {
    const first = (location.state as { send?: unknown } | null)?.send;
    if (typeof first !== "string" || started.current === threadId || run.loading) return;
    started.current = threadId;
    void navigate(location.pathname, { replace: true, state: null });
    void run.send(first).then(onActivity);
  }, [location, navigate, threadId, run, onActivity]);

  const turns = useMemo(() => toTurns(run.values.messages, run.values.delegations), [run.values]);
  const pending = run.pending[0];
  const waiting = pending !== undefined;
  const context = useMemo(
    () => ({ transcripts: run.transcripts, partials: run.partials, delegations: new Map(run.values.delegations.map((entry) => [entry.tool_call_id, entry])), running: run.running, waiting }),
    [run.transcripts, run.partials, run.values.delegations, run.running, waiting],
  );
  const streamed = [...(run.partials.get("")?.values() ?? [])];

  const send = (text: string) => void run.send(text).then(onActivity);
  const attach = (files: File[]) => {
    setUploadError(undefined);
    setUploadNote(`Uploading ${files.length} file${files.length === 1 ? "" : "s"}…`);
    uploadFiles(threadId, files).then(
      (stored) => {
        setUploadNote(`Uploaded ${stored.files.map((file) => file.name).join(", ")}: the agent sees ${stored.files.length === 1 ? "it" : "them"} with your next message.`);
        setRevision((current) => current + 1);
      },
      (failure: unknown) => {
        setUploadNote("");
        setUploadError(failure);
      },
    );
  };

  return (
    <div className="thread-view">
      <section className="conversation" aria-labelledby="conversation-title">
        <h2 id="conversation-title">{title}</h2>
        {run.loading ? (
          <p aria-busy="true">Loading the thread…</p>
        ) : turns.length === 0 && streamed.length === 0 && !run.running ? (
          <p className="empty">No messages yet: write one below. Start with / to run a command.</p>
        ) : (
          <TurnContextValue.Provider value={context}>
            <ol className="chat-turns" aria-label="Messages">
              {turns.map((turn, index) => {
                const spent = turn.human ? run.turnTokens[humanIndex(turns, index)] : undefined;
                return <TurnView key={turn.id} turn={turn} {...(spent ? { runTokens: spent } : {})} {...(index === turns.length - 1 && streamed.length > 0 ? { streamed } : {})} />;
              })}
            </ol>
          </TurnContextValue.Provider>
        )}
        <p className="chat-status" role="status">
          {run.running ? "The agent is answering…" : pending ? "The agent is waiting for you." : ""}
        </p>
        <ErrorNote error={run.error} />
        {pending && <PendingInputForm key={pending.id ?? JSON.stringify(pending)} pending={pending} busy={run.running} onAnswer={(value) => void run.resume(value).then(onActivity)} />}
        <Composer busy={run.running || waiting} commands={commands} onSend={send} onFiles={attach} {...(run.running ? { onCancel: run.cancel } : {})} />
        <p className="upload-note" role="status">
          {uploadNote}
        </p>
        <ErrorNote error={uploadError} />
      </section>
      <ThreadFiles threadId={threadId} artifacts={run.values.artifacts} revision={revision + run.values.artifacts.length} />
    </div>
  );
}

// The chat (routes `/` and `/threads/:id`): the caller's threads beside one conversation with the
// agent, through the agent API under this origin (/agent). docs/console.md, "Chat".
import type { Client, Thread } from "@langchain/langgraph-sdk";
import { useCallback, useEffect, useState } from "react";
import { Route, Routes, useLocation, useNavigate, useParams } from "react-router";
import { agentError, useAgentClient } from "../../api/agent-client.js";
import { ErrorNote } from "../../components/error-note.js";
import type { PageProps } from "../page-list.js";
import "./chat.css";
import { Composer } from "./composer.js";
import { loadSlashCommands, type SlashCommand } from "./slash-commands.js";
import { uploadFiles } from "./thread-files.js";
import { ThreadList, threadTitle } from "./thread-list.js";
import { ThreadView } from "./thread-view.js";

/** A new thread's title: the start of its first message. */
const titleFrom = (text: string) => (text.length > 60 ? `${text.slice(0, 57).trimEnd()}…` : text);

export function ChatPage({ session }: PageProps) {
  const agent = useAgentClient(session);
  const client = agent.client;
  const [threads, setThreads] = useState<Thread[]>();
  const [threadsError, setThreadsError] = useState<unknown>();
  const [commands, setCommands] = useState<readonly SlashCommand[]>([]);
  const navigate = useNavigate();
  const { pathname } = useLocation();

  const loadThreads = useCallback(() => {
    if (!client) return;
    client.threads.search({ limit: 100, sortBy: "updated_at", sortOrder: "desc", select: ["thread_id", "created_at", "updated_at", "metadata", "status"] }).then(
      (found) => {
        setThreads(found);
        setThreadsError(undefined);
      },
      (failure: unknown) => setThreadsError(agentError(failure)),
    );
  }, [client]);
  useEffect(loadThreads, [loadThreads]);
  useEffect(() => {
    const controller = new AbortController();
    // Completion is a convenience: without the list, commands still work when typed whole.
    loadSlashCommands(controller.signal).then(setCommands, () => undefined);
    return () => controller.abort();
  }, []);

  const deleted = (threadId: string) => {
    loadThreads();
    if (pathname === `/threads/${threadId}`) void navigate("/");
  };

  return (
    <div className="chat-page">
      <h1 className="visually-hidden">Chat</h1>
      <Routes>
        <Route index element={<NewThread ready={agent.ready} commands={commands} onCreated={loadThreads} />} />
        <Route path="threads/:threadId" element={client ? <OpenThread client={client} threads={threads} commands={commands} onActivity={loadThreads} /> : <ThreadLoading error={agent.error} />} />
      </Routes>
      <ThreadList client={client} threads={threads} error={threadsError ?? agent.error} onChanged={loadThreads} onDeleted={deleted} />
    </div>
  );
}

/** A thread's place while the agent client loads (or the reason it could not). */
function ThreadLoading({ error }: { readonly error: unknown }) {
  return (
    <div className="thread-view">
      <section className="conversation" aria-busy={error ? undefined : "true"}>
        {error ? <ErrorNote error={agentError(error)} /> : <p className="muted">Loading the thread…</p>}
      </section>
    </div>
  );
}

function NewThread({ ready, commands, onCreated }: { readonly ready: () => Promise<Client>; readonly commands: readonly SlashCommand[]; readonly onCreated: () => void }) {
  const navigate = useNavigate();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  // The message box works at once; a message sent before the client has loaded waits for it.
  const create = async (title: string) => (await (await ready()).threads.create({ metadata: { title } })).thread_id;
  const start = (text: string) => {
    setBusy(true);
    create(titleFrom(text)).then(
      (threadId) => {
        onCreated();
        void navigate(`/threads/${threadId}`, { state: { send: text } });
      },
      (failure: unknown) => {
        setBusy(false);
        setError(agentError(failure));
      },
    );
  };
  const attach = (files: File[]) => {
    setBusy(true);
    create(titleFrom(`Files: ${files.map((file) => file.name).join(", ")}`))
      .then(async (threadId) => {
        await uploadFiles(threadId, files);
        onCreated();
        void navigate(`/threads/${threadId}`);
      })
      .catch((failure: unknown) => {
        setBusy(false);
        setError(agentError(failure));
      });
  };
  return (
    <div className="thread-view">
      <section className="conversation" aria-labelledby="conversation-title">
        <h2 id="conversation-title">New thread</h2>
        <p className="empty">Ask the agent anything. Type / to pick a slash command, or attach files for it to work on.</p>
        <ErrorNote error={error} />
        <Composer busy={busy} commands={commands} onSend={start} onFiles={attach} />
      </section>
    </div>
  );
}

function OpenThread({ client, threads, commands, onActivity }: { readonly client: Client; readonly threads: readonly Thread[] | undefined; readonly commands: readonly SlashCommand[]; readonly onActivity: () => void }) {
  const { threadId = "" } = useParams();
  const thread = threads?.find((candidate) => candidate.thread_id === threadId);
  return <ThreadView key={threadId} client={client} threadId={threadId} title={thread ? threadTitle(thread) : "Thread"} commands={commands} onActivity={onActivity} />;
}

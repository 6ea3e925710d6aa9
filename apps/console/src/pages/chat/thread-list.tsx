// The caller's threads, newest first (POST /agent/threads/search, their own only): search by title,
// rename (the thread's metadata `title`, which the console sets from the first message; the agent
// stores none of its own), delete after a confirmation.
import type { Client, Thread } from "@langchain/langgraph-sdk";
import { useId, useState, type FormEvent } from "react";
import { NavLink } from "react-router";
import { agentError } from "../../api/agent-client.js";
import { ErrorNote } from "../../components/error-note.js";
import { revealBidi } from "../../text/reveal-bidi.js";

/** A thread's title: its metadata `title`, else when it was made. */
export function threadTitle(thread: Pick<Thread, "metadata" | "created_at">): string {
  const title = (thread.metadata as Record<string, unknown> | null)?.title;
  return typeof title === "string" && title.trim() !== "" ? title : `Thread of ${new Date(thread.created_at).toLocaleString()}`;
}

export interface ThreadListProps {
  /** Undefined while the agent client loads (the list is empty until then). */
  readonly client: Client | undefined;
  readonly threads: readonly Thread[] | undefined;
  readonly error: unknown;
  readonly activeId?: string;
  readonly onChanged: () => void;
  readonly onDeleted: (threadId: string) => void;
}

export function ThreadList({ client, threads, error, activeId, onChanged, onDeleted }: ThreadListProps) {
  const id = useId();
  const [query, setQuery] = useState("");
  const [renaming, setRenaming] = useState<string>();
  const [confirming, setConfirming] = useState<string>();
  const [failure, setFailure] = useState<unknown>();
  const wanted = query.trim().toLowerCase();
  const shown = (client ? (threads ?? []) : []).filter((thread) => wanted === "" || threadTitle(thread).toLowerCase().includes(wanted));

  const remove = (threadId: string) => {
    client?.threads.delete(threadId).then(
      () => {
        setConfirming(undefined);
        onDeleted(threadId);
      },
      (caught: unknown) => setFailure(agentError(caught)),
    );
  };

  return (
    <nav className="thread-list" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Threads</h2>
      <NavLink to="/" end className="button new-thread">
        New thread
      </NavLink>
      <label htmlFor={`${id}-search`}>Search threads</label>
      <input id={`${id}-search`} type="search" value={query} onChange={(event) => setQuery(event.target.value)} placeholder="Title contains…" />
      <ErrorNote error={error ?? failure} />
      {threads === undefined && !error && <p aria-busy="true">Loading threads…</p>}
      {threads !== undefined && shown.length === 0 && <p className="empty">{threads.length === 0 ? "No threads yet: write a message to start one." : "No thread title matches that search."}</p>}
      <ul>
        {shown.map((thread) => (
          <li key={thread.thread_id} className={thread.thread_id === activeId ? "active" : undefined}>
            {renaming === thread.thread_id ? (
              <RenameForm
                initial={threadTitle(thread)}
                onCancel={() => setRenaming(undefined)}
                onSave={(title) =>
                  (client as Client).threads.update(thread.thread_id, { metadata: { title } }).then(
                    () => {
                      setRenaming(undefined);
                      onChanged();
                    },
                    (caught: unknown) => setFailure(agentError(caught)),
                  )
                }
              />
            ) : (
              <>
                <NavLink to={`/threads/${thread.thread_id}`} className="thread-link">
                  {revealBidi(threadTitle(thread))}
                </NavLink>
                <span className="thread-actions">
                  <button type="button" className="link" onClick={() => setRenaming(thread.thread_id)} aria-label={`Rename ${threadTitle(thread)}`}>
                    Rename
                  </button>
                  {confirming === thread.thread_id ? (
                    <>
                      <button type="button" className="danger" onClick={() => remove(thread.thread_id)} aria-label={`Confirm deleting ${threadTitle(thread)}`}>
                        Delete
                      </button>
                      <button type="button" className="link" onClick={() => setConfirming(undefined)}>
                        Keep
                      </button>
                    </>
                  ) : (
                    <button type="button" className="link" onClick={() => setConfirming(thread.thread_id)} aria-label={`Delete ${threadTitle(thread)}`}>
                      Delete
                    </button>
                  )}
                </span>
              </>
            )}
          </li>
        ))}
      </ul>
    </nav>
  );
}

function RenameForm({ initial, onSave, onCancel }: { readonly initial: string; readonly onSave: (title: string) => void; readonly onCancel: () => void }) {
  const id = useId();
  const [title, setTitle] = useState(initial);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (title.trim() !== "") onSave(title.trim().slice(0, 200));
  };
  return (
    <form onSubmit={submit} className="rename-form">
      <label htmlFor={id}>New title</label>
      <input id={id} value={title} onChange={(event) => setTitle(event.target.value)} autoFocus maxLength={200} />
      <button type="submit">Save</button>
      <button type="button" className="link" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}

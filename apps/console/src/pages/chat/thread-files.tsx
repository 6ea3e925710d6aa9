// A thread's files beside the chat: what the user uploaded (GET /agent/threads/:id/files) and what
// the agent presented with present_files (the state's `artifacts`), each with a download link to
// the agent's thread file route (served as an attachment, never rendered on this origin).
import { useEffect, useId, useState } from "react";
import { api } from "../../api/api-client.js";
import { ErrorNote } from "../../components/error-note.js";
import { revealBidi } from "../../text/reveal-bidi.js";
import { artifactHref, type Artifact } from "./chat-model.js";

interface Listed {
  readonly name: string;
  readonly size: number;
}

/** Uploads files into a thread's uploads/ folder (multipart `file` fields). */
export function uploadFiles(threadId: string, files: readonly File[]): Promise<{ files: { name: string; path: string; size: number }[] }> {
  const body = new FormData();
  for (const file of files) body.append("file", file, file.name);
  return api(`/agent/threads/${encodeURIComponent(threadId)}/files`, { method: "POST", body });
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The path of a file in a folder, each segment encoded. */
const filePath = (name: string) => name.split("/").map(encodeURIComponent).join("/");

export function ThreadFiles({ threadId, artifacts, revision }: { readonly threadId: string; readonly artifacts: readonly Artifact[]; readonly revision: number }) {
  const id = useId();
  const [uploads, setUploads] = useState<readonly Listed[]>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    const controller = new AbortController();
    api<{ files: Listed[] }>(`/agent/threads/${encodeURIComponent(threadId)}/files?folder=uploads`, { signal: controller.signal }).then(
      (listing) => {
        setUploads(listing.files);
        setError(undefined);
      },
      (failure: unknown) => {
        if (!controller.signal.aborted) setError(failure);
      },
    );
    return () => controller.abort();
  }, [threadId, revision]);

  return (
    <section className="thread-files" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Files</h2>
      <ErrorNote error={error} />
      <h3>Made by the agent</h3>
      {artifacts.length === 0 ? (
        <p className="muted">None yet: files the agent presents appear here to download.</p>
      ) : (
        <ul className="file-list">
          {artifacts.map((artifact) => {
            const href = artifactHref(artifact);
            const name = revealBidi(artifact.name);
            return (
              <li key={artifact.path}>
                {href ? (
                  <a href={href} download={artifact.name}>
                    {name}
                  </a>
                ) : (
                  <span>{name} (no download link)</span>
                )}{" "}
                <span className="muted">{size(artifact.size)}</span>
              </li>
            );
          })}
        </ul>
      )}
      <h3>Uploaded</h3>
      {uploads === undefined && !error ? (
        <p aria-busy="true">Loading…</p>
      ) : uploads?.length === 0 ? (
        <p className="muted">None: attach files below; the agent sees them with your next message.</p>
      ) : (
        <ul className="file-list">
          {uploads?.map((file) => (
            <li key={file.name}>
              <a href={`/agent/threads/${encodeURIComponent(threadId)}/files/uploads/${filePath(file.name)}`} download={file.name.split("/").at(-1)}>
                {revealBidi(file.name)}
              </a>{" "}
              <span className="muted">{size(file.size)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

// The caller's memory (GET/PUT/DELETE /api/memory...): its files, one file's text to read and edit,
// delete one, forget everything (after a second, explicit confirmation), the export, and the switches.
import { useState, type FormEvent } from "react";
import { deleteMemoryFile, forgetAllMemory, listMemory, readMemoryFile, setMemorySettings, writeMemoryFile } from "../api/operations-api.js";
import { useResource } from "../api/use-resource.js";
import { ErrorNote } from "../components/error-note.js";
import { revealBidi } from "../text/reveal-bidi.js";
import { formatBytes, formatTime } from "./operations/format.js";
import type { PageProps } from "./page-list.js";
import { TableWrap } from "./operations/table-wrap.js";
import "./operations/operations.css";

export function MemoryPage(_props: PageProps) {
  const memory = useResource((signal) => listMemory(signal));
  const [selected, setSelected] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [note, setNote] = useState<string>();
  const [confirmForget, setConfirmForget] = useState(false);
  const files = memory.data?.files ?? [];
  const done = (message: string) => {
    setNote(message);
    setError(undefined);
    memory.reload();
  };
  const forget = () => {
    forgetAllMemory().then(
      (answer) => {
        setConfirmForget(false);
        setSelected(undefined);
        done(`Forgot everything: ${answer.removed} file${answer.removed === 1 ? "" : "s"} removed.`);
      },
      setError,
    );
  };
  const toggle = (key: "enabled" | "auto", value: boolean) => setMemorySettings({ [key]: value }).then(() => done(`${key === "auto" ? "Automatic memory" : "Memory"} ${value ? "on" : "off"}.`), setError);
  return (
    <section aria-labelledby="memory-title">
      <h1 id="memory-title">Memory</h1>
      <p className="muted">What the agent keeps about you between threads, as files under /memories. Only you see them here.</p>
      <ErrorNote error={error ?? memory.error} />
      {note && <p role="status">{note}</p>}
      {memory.data && (
        <div className="ops-toolbar">
          <span className="ops-field-check">
            <input id="memory-enabled" type="checkbox" checked={memory.data.settings.enabled} onChange={(event) => toggle("enabled", event.target.checked)} />
            <label htmlFor="memory-enabled">Use memory in my runs</label>
          </span>
          <span className="ops-field-check">
            <input id="memory-auto" type="checkbox" checked={memory.data.settings.auto} disabled={!memory.data.settings.enabled} onChange={(event) => toggle("auto", event.target.checked)} />
            <label htmlFor="memory-auto">Update it automatically</label>
          </span>
          <a href="/api/memory/export" download>
            Download all (zip)
          </a>
        </div>
      )}
      {memory.data && files.length === 0 && <p className="empty">No memory files yet. Ask the agent to remember something, or write a file below.</p>}
      {files.length > 0 && (
        <TableWrap label="Memory files">
          <table>
            <caption className="muted">
              {files.length} of at most {memory.data?.limits.max_files} files, {formatBytes(memory.data?.total_bytes ?? 0)} of {memory.data?.limits.max_kb} KB
            </caption>
            <thead>
              <tr>
                <th scope="col">File</th>
                <th scope="col">Size</th>
                <th scope="col">Changed</th>
              </tr>
            </thead>
            <tbody>
              {files.map((file) => (
                <tr key={file.path}>
                  <td>
                    <button type="button" className="link" aria-pressed={selected === file.path} onClick={() => setSelected(file.path)}>
                      {revealBidi(file.path)}
                    </button>
                  </td>
                  <td>{formatBytes(file.size)}</td>
                  <td>{formatTime(file.modified)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {selected && (
        <FileEditor
          key={selected}
          path={selected}
          onSaved={() => done(`Saved ${selected}.`)}
          onDeleted={() => {
            setSelected(undefined);
            done(`Deleted ${selected}.`);
          }}
          onError={setError}
        />
      )}
      <NewFileForm onSaved={(path) => done(`Saved ${path}.`)} onError={setError} />
      {files.length > 0 && (
        <section aria-labelledby="forget-title">
          <h2 id="forget-title">Forget everything</h2>
          {!confirmForget ? (
            <button type="button" className="danger" onClick={() => setConfirmForget(true)}>
              Forget everything…
            </button>
          ) : (
            <div className="ops-actions" role="group" aria-label="Confirm forgetting everything">
              <span>This deletes all {files.length} files. It cannot be undone.</span>
              <button type="button" className="danger" onClick={forget}>
                Yes, delete all memory
              </button>
              <button type="button" className="secondary" onClick={() => setConfirmForget(false)}>
                Cancel
              </button>
            </div>
          )}
        </section>
      )}
    </section>
  );
}

function FileEditor({ path, onSaved, onDeleted, onError }: { readonly path: string; readonly onSaved: () => void; readonly onDeleted: () => void; readonly onError: (error: unknown) => void }) {
  const file = useResource((signal) => readMemoryFile(path, signal), path);
  const [text, setText] = useState<string>();
  const [busy, setBusy] = useState(false);
  const value = text ?? file.data?.content ?? "";
  const act = (work: () => Promise<unknown>, then: () => void) => {
    setBusy(true);
    work().then(
      () => {
        setBusy(false);
        then();
      },
      (failure: unknown) => {
        setBusy(false);
        onError(failure);
      },
    );
  };
  return (
    <section aria-labelledby="memory-file-title" className="card ops-memory-editor">
      <h2 id="memory-file-title">{revealBidi(path)}</h2>
      <ErrorNote error={file.error} />
      {file.data && (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            act(() => writeMemoryFile(path, value), onSaved);
          }}
        >
          <label htmlFor="memory-file-text">File text</label>
          <textarea id="memory-file-text" value={value} onChange={(event) => setText(event.target.value)} spellCheck={false} />
          <div className="ops-actions">
            <button type="submit" disabled={busy}>
              Save
            </button>
            <button type="button" className="danger" disabled={busy} onClick={() => act(() => deleteMemoryFile(path), onDeleted)}>
              Delete this file
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

function NewFileForm({ onSaved, onError }: { readonly onSaved: (path: string) => void; readonly onError: (error: unknown) => void }) {
  const [path, setPath] = useState("");
  const [content, setContent] = useState("");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const target = `/memories/${path.trim().replace(/^\/?(memories\/)?/, "")}`;
    writeMemoryFile(target, content).then(() => {
      setPath("");
      setContent("");
      onSaved(target);
    }, onError);
  };
  return (
    <section aria-labelledby="memory-new-title">
      <h2 id="memory-new-title">Write a file</h2>
      <form className="ops-form" onSubmit={submit}>
        <label htmlFor="memory-new-path">Path under /memories</label>
        <input id="memory-new-path" value={path} onChange={(event) => setPath(event.target.value)} required placeholder="preferences.md" />
        <label htmlFor="memory-new-text">New file text</label>
        <textarea id="memory-new-text" rows={4} value={content} onChange={(event) => setContent(event.target.value)} />
        <div className="row">
          <button type="submit" disabled={path.trim() === ""}>
            Save file
          </button>
        </div>
      </form>
    </section>
  );
}

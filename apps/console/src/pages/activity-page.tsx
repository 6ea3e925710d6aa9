// Activity: recent runs across the caller's threads with their figures (GET /agent/runs/recent),
// and for administrators the audit log (GET /api/audit), filtered and paged.
import { useState, type FormEvent } from "react";
import { Link } from "react-router";
import { listAudit, recentRuns, type AuditEntry, type AuditFilter } from "../api/operations-api.js";
import { useResource } from "../api/use-resource.js";
import { ErrorNote } from "../components/error-note.js";
import { revealBidi } from "../text/reveal-bidi.js";
import { formatDuration, formatTime } from "./operations/format.js";
import { StatusBadge } from "./operations/status-badge.js";
import type { PageProps } from "./page-list.js";
import { TableWrap } from "./operations/table-wrap.js";
import "./operations/operations.css";

export function ActivityPage({ session }: PageProps) {
  const admin = session.user?.role === "admin";
  return (
    <section aria-labelledby="activity-title">
      <h1 id="activity-title">Activity</h1>
      <RecentRuns everyone={admin} />
      {admin && <AuditLog />}
    </section>
  );
}

function RecentRuns({ everyone }: { readonly everyone: boolean }) {
  const runs = useResource((signal) => recentRuns(everyone, signal));
  const list = runs.data?.runs ?? [];
  return (
    <section aria-labelledby="runs-title">
      <div className="ops-toolbar">
        <h2 id="runs-title">Recent runs</h2>
        <button type="button" className="secondary" onClick={runs.reload}>
          Refresh
        </button>
      </div>
      <ErrorNote error={runs.error} />
      {runs.data && list.length === 0 && (
        <p className="empty">
          No runs yet. <Link to="/">Start a chat</Link> and its runs show here with their duration, tokens and tool calls.
        </p>
      )}
      {list.length > 0 && (
        <TableWrap label="Recent runs">
          <table className="runs-table">
            <thead>
              <tr>
                <th scope="col">Started</th>
                <th scope="col">Status</th>
                <th scope="col">Took</th>
                <th scope="col">Tokens (in / out)</th>
                <th scope="col">Tool calls</th>
                <th scope="col">Errors</th>
                {everyone && <th scope="col">User</th>}
                <th scope="col">Thread</th>
              </tr>
            </thead>
            <tbody>
              {list.map((run) => (
                <tr key={run.run_id}>
                  <td>{formatTime(run.created_at)}</td>
                  <td>
                    <StatusBadge status={run.status} />
                  </td>
                  <td>{formatDuration(run.duration_ms)}</td>
                  <td>{run.tokens ? `${run.tokens.estimated ? "≈" : ""}${run.tokens.total} (${run.tokens.input} / ${run.tokens.output})` : ""}</td>
                  <td>{run.tool_calls ?? ""}</td>
                  <td>
                    {run.tool_errors ? `${run.tool_errors} tool error${run.tool_errors === 1 ? "" : "s"}` : ""}
                    {run.error && (
                      <span className="run-error">
                        {run.tool_errors ? "; " : ""}
                        {revealBidi(run.error.message)} <code>{run.error.error}</code>
                      </span>
                    )}
                  </td>
                  {everyone && <td>{run.owner_id ? revealBidi(run.owner_id) : ""}</td>}
                  <td>
                    <Link to={`/threads/${encodeURIComponent(run.thread_id)}`}>
                      <span className="ops-visually-hidden">Open thread </span>
                      {run.thread_id.slice(0, 8)}
                    </Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </section>
  );
}

function AuditLog() {
  const [filter, setFilter] = useState<AuditFilter>({});
  const [draft, setDraft] = useState({ action: "", actor: "", target: "" });
  const [pages, setPages] = useState<string[]>([]);
  const before = pages[pages.length - 1];
  const audit = useResource((signal) => listAudit({ ...filter, ...(before ? { before } : {}) }, signal), JSON.stringify([filter, before]));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setPages([]);
    setFilter({ ...(draft.action.trim() ? { action: draft.action.trim() } : {}), ...(draft.actor.trim() ? { actor: draft.actor.trim() } : {}), ...(draft.target.trim() ? { target: draft.target.trim() } : {}) });
  };
  const entries = audit.data?.entries ?? [];
  return (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">Audit log</h2>
      <form className="ops-form" onSubmit={submit} aria-label="Filter the audit log">
        <div className="row">
          {(["action", "actor", "target"] as const).map((key) => (
            <span key={key}>
              <label htmlFor={`audit-${key}`}>{key === "action" ? "Action" : key === "actor" ? "Actor id" : "Target"}</label>
              <input id={`audit-${key}`} value={draft[key]} onChange={(event) => setDraft({ ...draft, [key]: event.target.value })} placeholder={key === "action" ? "plugin.install" : ""} />
            </span>
          ))}
          <button type="submit">Filter</button>
        </div>
      </form>
      <ErrorNote error={audit.error} />
      {audit.data && entries.length === 0 && <p className="empty">Nothing recorded{Object.keys(filter).length > 0 ? " for this filter; clear it to see everything" : " yet: installs, sign-ins, users and keys show here as they happen"}.</p>}
      {entries.length > 0 && <AuditTable entries={entries} />}
      <div className="ops-actions">
        {pages.length > 0 && (
          <button type="button" className="secondary" onClick={() => setPages(pages.slice(0, -1))}>
            Newer
          </button>
        )}
        {audit.data?.next && (
          <button type="button" className="secondary" onClick={() => setPages([...pages, audit.data?.next ?? ""])}>
            Older
          </button>
        )}
      </div>
    </section>
  );
}

function AuditTable({ entries }: { readonly entries: readonly AuditEntry[] }) {
  return (
    <TableWrap label="Audit entries">
      <table className="audit-table">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">Outcome</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td>{formatTime(entry.at)}</td>
              <td>{entry.actor ? revealBidi(entry.actor.name) : <span className="muted">anonymous</span>}</td>
              <td>
                <code>{revealBidi(entry.action)}</code>
              </td>
              <td>{entry.target ? revealBidi(entry.target) : ""}</td>
              <td>
                <StatusBadge status={entry.outcome} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

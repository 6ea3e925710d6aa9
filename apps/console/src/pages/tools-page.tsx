// Registered tools: each one's description and a form generated from its input schema to try it
// (POST /api/tools/:name/call), the answer shown as text; administrators also see its recent calls
// from the execution log (GET /api/tools/:name/executions).
import { useState } from "react";
import { callTool, listTools, toolExecutions, type ToolResult, type ToolView } from "../api/operations-api.js";
import { useResource } from "../api/use-resource.js";
import { ErrorNote } from "../components/error-note.js";
import { revealBidi } from "../text/reveal-bidi.js";
import { formatDuration, formatTime, resultText } from "./operations/format.js";
import { SchemaForm } from "./operations/schema-form.js";
import { StatusBadge } from "./operations/status-badge.js";
import type { PageProps } from "./page-list.js";
import { TableWrap } from "./operations/table-wrap.js";
import "./operations/operations.css";

export function ToolsPage({ session }: PageProps) {
  const tools = useResource((signal) => listTools(signal));
  const admin = session.user?.role === "admin";
  const list = tools.data?.tools ?? [];
  return (
    <section aria-labelledby="tools-title">
      <h1 id="tools-title">Tools</h1>
      <p className="muted">Registered script tools the agent offers. Try one with its form; MCP servers' tools are listed on the MCP servers page.</p>
      <ErrorNote error={tools.error} />
      {tools.data && list.length === 0 && (
        <p className="empty">No registered tools yet. {admin ? "Register one with POST /api/tools (see docs/tools.md), then come back to try it." : "An administrator registers them (docs/tools.md)."}</p>
      )}
      <ul className="ops-list" aria-label="Registered tools">
        {list.map((tool) => (
          <li key={tool.name}>
            <ToolCard tool={tool} admin={admin} />
          </li>
        ))}
      </ul>
    </section>
  );
}

function ToolCard({ tool, admin }: { readonly tool: ToolView; readonly admin: boolean }) {
  const [open, setOpen] = useState(false);
  const [log, setLog] = useState(false);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<ToolResult>();
  const [error, setError] = useState<unknown>();
  const [calls, setCalls] = useState(0);
  const name = revealBidi(tool.name);
  const headingId = `tool-${encodeURIComponent(tool.name).replace(/%/g, "_")}`;
  const run = (args: Record<string, unknown>) => {
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    callTool(tool.name, args).then(
      (answer) => {
        setBusy(false);
        setResult(answer);
        setCalls((count) => count + 1);
      },
      (failure: unknown) => {
        setBusy(false);
        setError(failure);
      },
    );
  };
  return (
    <article className="card" aria-labelledby={headingId}>
      <div className="ops-card-head">
        <h2 id={headingId}>{name}</h2>
        <span className="muted">{tool.runtime}</span>
        {!tool.enabled && <StatusBadge status="disabled" />}
      </div>
      <p className="tool-description">{revealBidi(tool.description)}</p>
      <div className="ops-actions">
        <button type="button" className="secondary" aria-expanded={open} onClick={() => setOpen((shown) => !shown)}>
          {open ? "Close" : `Try ${name}`}
        </button>
        {admin && (
          <button type="button" className="secondary" aria-expanded={log} onClick={() => setLog((shown) => !shown)}>
            {log ? "Hide recent calls" : "Recent calls"}
          </button>
        )}
      </div>
      {open && (
        <section aria-label={`Try ${name}`}>
          <SchemaForm schema={tool.input_schema} action={`Run ${name}`} busy={busy} onSubmit={run} />
          <ErrorNote error={error} />
          {result && (
            <div className="tool-result" aria-live="polite">
              <h3>Result</h3>
              {result.status === "success" ? (
                <pre>{revealBidi(resultText(result.data))}</pre>
              ) : (
                <p role="alert" className="error-note">
                  {revealBidi(result.error.message)}
                  <code className="error-code">{result.error.code}</code>
                </p>
              )}
            </div>
          )}
        </section>
      )}
      {log && <ExecutionLog name={tool.name} refreshKey={calls} />}
    </article>
  );
}

function ExecutionLog({ name, refreshKey }: { readonly name: string; readonly refreshKey: number }) {
  const executions = useResource((signal) => toolExecutions(name, signal), `${name}:${refreshKey}`);
  if (executions.error) return <ErrorNote error={executions.error} />;
  if (!executions.data) return <p aria-busy="true">Loading recent calls…</p>;
  if (executions.data.executions.length === 0) return <p className="empty">No calls yet. Try the tool above, or ask the agent to use it.</p>;
  return (
    <TableWrap label="Recent calls">
      <table>
        <caption className="muted">Recent calls, newest first</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Status</th>
            <th scope="col">Took</th>
            <th scope="col">From</th>
            <th scope="col">Error</th>
          </tr>
        </thead>
        <tbody>
          {executions.data.executions.map((execution) => (
            <tr key={execution.id}>
              <td>{formatTime(execution.started_at)}</td>
              <td>
                <StatusBadge status={execution.status} />
              </td>
              <td>{formatDuration(execution.duration_ms)}</td>
              <td>{execution.source ?? ""}</td>
              <td>{execution.error ? `${revealBidi(execution.error.message)} (${execution.error.code})` : ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

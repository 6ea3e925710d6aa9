// MCP servers: each one's state as the agent reports it (GET /api/mcp/servers), its tools, adding a
// remote server, and signing in and out of servers that use OAuth. Sign-in is a full-page visit to
// the authorization server, which the gateway's callback sends back here with the outcome.
import { useEffect, useState, type FormEvent } from "react";
import { useSearchParams } from "react-router";
import { addRemoteServer, listServers, removeServer, serverTools, signOutOfServer, startServerSignIn, type McpServerView } from "../api/operations-api.js";
import { useResource } from "../api/use-resource.js";
import { ErrorNote } from "../components/error-note.js";
import { revealBidi } from "../text/reveal-bidi.js";
import { formatTime } from "./operations/format.js";
import { StatusBadge } from "./operations/status-badge.js";
import type { PageProps } from "./page-list.js";
import "./operations/operations.css";

/** Where the sign-in comes back to: this page (a same-origin path; the gateway refuses any other). */
const returnPath = "/servers";

export function ServersPage({ session }: PageProps) {
  const servers = useResource((signal) => listServers(signal));
  const [params, setParams] = useSearchParams();
  const [outcome] = useState(() => signInOutcome(params));
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState<string>();
  // The callback's outcome is read once, then dropped from the address so a reload does not repeat it.
  useEffect(() => {
    if (params.has("mcp_auth")) setParams({}, { replace: true });
  }, [params, setParams]);
  // States change as the agent connects: look again every few seconds while the page is open.
  useEffect(() => {
    const timer = setInterval(servers.reload, 5000);
    return () => clearInterval(timer);
  }, [servers.reload]);
  const admin = session.user?.role === "admin";
  const list = servers.data?.servers ?? [];
  return (
    <section aria-labelledby="servers-title">
      <h1 id="servers-title">MCP servers</h1>
      {outcome && (
        <p role="status" className={outcome.ok ? "ops-notice" : "ops-notice failed"}>
          {outcome.ok ? `Signed in to ${revealBidi(outcome.server ?? "the server")}.` : `Sign-in to ${revealBidi(outcome.server ?? "the server")} failed`}
          {outcome.code && <code className="error-code">{outcome.code}</code>}
        </p>
      )}
      {notice && <p role="status">{notice}</p>}
      <ErrorNote error={error ?? servers.error} />
      <div className="ops-toolbar">
        <button type="button" className="secondary" onClick={servers.reload}>
          Refresh
        </button>
      </div>
      {servers.data && list.length === 0 && (
        <p className="empty">No MCP servers yet. Add a remote server below{admin ? ", configure one in extensions_config.json," : ""} or install a plugin that brings one.</p>
      )}
      <ul className="ops-list" aria-label="Servers">
        {list.map((server) => (
          <li key={server.name}>
            <ServerCard server={server} admin={admin} onChanged={servers.reload} onError={setError} onNotice={setNotice} />
          </li>
        ))}
      </ul>
      <AddServerForm onAdded={servers.reload} />
    </section>
  );
}

function signInOutcome(params: URLSearchParams): { ok: boolean; server?: string; code?: string } | undefined {
  const auth = params.get("mcp_auth");
  if (auth !== "connected" && auth !== "failed") return undefined;
  const server = params.get("mcp_server") ?? undefined;
  const code = params.get("code") ?? undefined;
  return { ok: auth === "connected", ...(server ? { server } : {}), ...(code && auth === "failed" ? { code } : {}) };
}

interface ServerCardProps {
  readonly server: McpServerView;
  readonly admin: boolean;
  readonly onChanged: () => void;
  readonly onError: (error: unknown) => void;
  readonly onNotice: (notice: string | undefined) => void;
}

function ServerCard({ server, admin, onChanged, onError, onNotice }: ServerCardProps) {
  const [busy, setBusy] = useState(false);
  const [showTools, setShowTools] = useState(false);
  const name = revealBidi(server.name);
  const remote = server.transport === "http" || server.transport === "sse";
  const signedIn = server.auth?.signed_in === true;
  const canSignIn = remote && (server.status === "needs_auth" || (server.auth !== undefined && !signedIn));
  const removable = server.source === "user" || (admin && server.source === "config");
  const act = (work: () => Promise<unknown>, done: string) => {
    setBusy(true);
    onError(undefined);
    onNotice(undefined);
    work().then(
      () => {
        setBusy(false);
        onNotice(done);
        onChanged();
      },
      (failure: unknown) => {
        setBusy(false);
        onError(failure);
      },
    );
  };
  const signIn = () => {
    setBusy(true);
    onError(undefined);
    startServerSignIn(server.name, returnPath).then(
      (started) => window.location.assign(started.authorization_url),
      (failure: unknown) => {
        setBusy(false);
        onError(failure);
      },
    );
  };
  const headingId = `server-${encodeURIComponent(server.name).replace(/%/g, "_")}`;
  return (
    <article className="card server-card" aria-labelledby={headingId}>
      <div className="ops-card-head">
        <h2 id={headingId}>{name}</h2>
        <StatusBadge status={server.status ?? "unknown"} />
      </div>
      <dl className="ops-facts">
        <dt>Source</dt>
        <dd>{revealBidi(server.source)}</dd>
        <dt>Transport</dt>
        <dd>{server.transport}</dd>
        {server.reason && (
          <>
            <dt>Reason</dt>
            <dd className="server-reason">{revealBidi(server.reason)}</dd>
          </>
        )}
        <dt>Tools</dt>
        <dd>{server.tool_count === undefined ? "not known yet" : `${server.tool_count}${server.tools_from === "cache" ? " (cached)" : ""}`}</dd>
        {server.protocol_version && (
          <>
            <dt>Protocol</dt>
            <dd>{server.protocol_version}</dd>
          </>
        )}
        {server.last_error && (
          <>
            <dt>Last error</dt>
            <dd>
              {revealBidi(server.last_error)}
              {server.last_error_at && <span className="muted"> ({formatTime(server.last_error_at)})</span>}
            </dd>
          </>
        )}
        {server.auth && (
          <>
            <dt>Sign-in</dt>
            <dd>{signedIn ? `signed in${server.auth.expires_at ? `, token expires ${formatTime(server.auth.expires_at)}` : ""}` : "not signed in"}</dd>
          </>
        )}
      </dl>
      <div className="ops-actions">
        {canSignIn && (
          <button type="button" disabled={busy} onClick={signIn}>
            Sign in to {name}
          </button>
        )}
        {signedIn && (
          <button type="button" className="secondary" disabled={busy} onClick={() => act(() => signOutOfServer(server.name), `Signed out of ${name}.`)}>
            Sign out of {name}
          </button>
        )}
        <button type="button" className="secondary" aria-expanded={showTools} onClick={() => setShowTools((shown) => !shown)}>
          {showTools ? "Hide tools" : "Show tools"}
        </button>
        {removable && (
          <button type="button" className="danger" disabled={busy} onClick={() => act(() => removeServer(server.name), `Removed ${name}.`)}>
            Remove {name}
          </button>
        )}
      </div>
      {showTools && <ServerTools name={server.name} />}
    </article>
  );
}

function ServerTools({ name }: { readonly name: string }) {
  const tools = useResource((signal) => serverTools(name, signal), name);
  if (tools.error) return <ErrorNote error={tools.error} />;
  if (!tools.data) return <p aria-busy="true">Loading tools…</p>;
  if (tools.data.tools.length === 0) {
    return <p className="empty">{tools.data.note ? revealBidi(tools.data.note) : "No tools listed yet: they appear once the agent has connected to this server (sign in first if it needs it)."}</p>;
  }
  return (
    <div>
      {tools.data.fetched_at && <p className="muted">Listed {formatTime(tools.data.fetched_at)}</p>}
      <ul className="server-tools">
        {tools.data.tools.map((tool) => (
          <li key={tool.name}>
            <code>{revealBidi(tool.name)}</code>
            {tool.description && <span>: {revealBidi(tool.description)}</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}

function AddServerForm({ onAdded }: { readonly onAdded: () => void }) {
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [type, setType] = useState<"http" | "sse">("http");
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [added, setAdded] = useState<string>();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    addRemoteServer(name.trim(), { type, url: url.trim() }).then(
      (server) => {
        setBusy(false);
        setAdded(server.name);
        setName("");
        setUrl("");
        onAdded();
      },
      (failure: unknown) => {
        setBusy(false);
        setError(failure);
      },
    );
  };
  return (
    <section aria-labelledby="add-server-title">
      <h2 id="add-server-title">Add a remote server</h2>
      <form className="ops-form" onSubmit={submit}>
        <label htmlFor="server-name">Name</label>
        <input id="server-name" value={name} onChange={(event) => setName(event.target.value)} required pattern="[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}" aria-describedby="server-name-hint" />
        <span id="server-name-hint" className="ops-field-hint">
          Letters, digits, dot, dash and underscore. A server you add as a user is yours alone (listed as ~name).
        </span>
        <label htmlFor="server-url">URL</label>
        <input id="server-url" type="url" value={url} onChange={(event) => setUrl(event.target.value)} required placeholder="https://example.com/mcp" />
        <label htmlFor="server-type">Transport</label>
        <select id="server-type" value={type} onChange={(event) => setType(event.target.value === "sse" ? "sse" : "http")}>
          <option value="http">Streamable HTTP</option>
          <option value="sse">SSE (older servers)</option>
        </select>
        <div className="row">
          <button type="submit" disabled={busy || name.trim() === "" || url.trim() === ""}>
            Add server
          </button>
        </div>
      </form>
      {added && <p role="status">Added {revealBidi(added)}. It connects on first use; sign in above if it asks.</p>}
      <ErrorNote error={error} />
    </section>
  );
}

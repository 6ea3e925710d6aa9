// Plugins: the installed ones (GET /api/plugins), each switched on or off by an administrator;
// /plugins/:name shows one (catalog/plugin-detail.tsx) with update, rollback and removal.
// Plugins come from marketplaces (the Marketplaces page).
import { useId, useState } from "react";
import { Link, Route, Routes, useParams } from "react-router";
import { listPlugins, setPluginEnabled, type PluginSummary } from "../api/catalog-api.js";
import { useResource } from "../api/use-resource.js";
import { ErrorNote } from "../components/error-note.js";
import { PluginDetailView } from "./catalog/plugin-detail.js";
import { Untrusted, versionText } from "./catalog/untrusted-text.js";
import type { PageProps } from "./page-list.js";
import "./catalog/catalog.css";

export function PluginsPage({ session }: PageProps) {
  return (
    <Routes>
      <Route index element={<PluginsList session={session} />} />
      <Route path=":name" element={<PluginDetailRoute session={session} />} />
    </Routes>
  );
}

function PluginDetailRoute({ session }: PageProps) {
  const name = useParams().name ?? "";
  return <PluginDetailView name={name} session={session} />;
}

function PluginsList({ session }: PageProps) {
  const plugins = useResource((signal) => listPlugins(signal));
  const [error, setError] = useState<unknown>();
  const admin = session.user?.role === "admin";
  const list = plugins.data?.plugins ?? [];
  return (
    <section aria-labelledby="plugins-title">
      <h1 id="plugins-title">Plugins</h1>
      <p className="muted">
        Claude Code plugins bring skills, slash commands, sub-agents, MCP servers and hooks. Browse and install them from the <Link to="/marketplaces">Marketplaces</Link> page.
      </p>
      <ErrorNote error={error ?? plugins.error} />
      {plugins.loading && !plugins.data && <p aria-busy="true">Loading plugins…</p>}
      {plugins.data && list.length === 0 && (
        <p className="empty">
          No plugins installed. {admin ? <>Add a marketplace on the <Link to="/marketplaces">Marketplaces</Link> page, then install a plugin from it.</> : "Ask an administrator to install one from a marketplace."}
        </p>
      )}
      <ul className="catalog-list" aria-label="Installed plugins">
        {list.map((plugin) => (
          <li key={plugin.name}>
            <PluginCard plugin={plugin} admin={admin} onChanged={plugins.reload} onError={setError} />
          </li>
        ))}
      </ul>
    </section>
  );
}

function PluginCard({ plugin, admin, onChanged, onError }: { readonly plugin: PluginSummary; readonly admin: boolean; readonly onChanged: () => void; readonly onError: (error: unknown) => void }) {
  const [busy, setBusy] = useState(false);
  const id = useId();
  const { counts } = plugin;
  const toggle = () => {
    setBusy(true);
    onError(undefined);
    setPluginEnabled(plugin.name, !plugin.enabled)
      .then(onChanged, onError)
      .finally(() => setBusy(false));
  };
  return (
    <article className="card">
      <div className="catalog-head">
        <h2>
          <Link to={`/plugins/${encodeURIComponent(plugin.name)}`}>
            <Untrusted text={plugin.name} />
          </Link>
        </h2>
        <span className="tag">{versionText(plugin.version)}</span>
        <span className={plugin.state === "invalid" ? "tag warn" : plugin.state === "enabled" ? "tag ok" : "tag"}>{plugin.state}</span>
        {plugin.trusted ? <span className="tag ok">trusted</span> : <span className="tag">untrusted</span>}
      </div>
      <p className="catalog-desc catalog-clamp">
        <Untrusted text={plugin.description} />
      </p>
      <p className="muted">
        {counts.skills} skills, {counts.commands} commands, {counts.agents} sub-agents, {counts.servers} servers, {counts.hooks} hooks
        {plugin.problems.errors + plugin.problems.warnings > 0 && `; ${plugin.problems.errors} errors, ${plugin.problems.warnings} warnings`}
      </p>
      {admin && (
        <div className="catalog-actions">
          <input id={id} type="checkbox" checked={plugin.enabled} disabled={busy} onChange={toggle} />
          <label htmlFor={id} className="check">
            Enabled<span className="catalog-sr"> (<Untrusted text={plugin.name} />)</span>
          </label>
        </div>
      )}
    </article>
  );
}

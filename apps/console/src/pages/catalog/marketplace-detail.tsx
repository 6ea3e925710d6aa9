// One marketplace (/marketplaces/:name): its plugins with description, version and whether each is
// installed; a plugin's details (what it brings, its script tools and their trust, its projected
// context cost) are read on request before installing; install; an installed one links to its page.
import { useState } from "react";
import { Link } from "react-router";
import type { Session } from "../../api/session.js";
import { installFromMarketplace, marketplacePlugin, marketplacePlugins, type MarketplaceEntry, type MarketplacePreview } from "../../api/catalog-api.js";
import { useResource } from "../../api/use-resource.js";
import { ErrorNote } from "../../components/error-note.js";
import { revealBidi } from "../../text/reveal-bidi.js";
import { PluginBrings } from "./plugin-brings.js";
import { Untrusted, versionText } from "./untrusted-text.js";

export function MarketplaceDetailView({ name, session }: { readonly name: string; readonly session: Session }) {
  const entries = useResource((signal) => marketplacePlugins(name, signal), name);
  const [filter, setFilter] = useState("");
  const admin = session.user?.role === "admin";
  const list = entries.data?.plugins ?? [];
  const wanted = filter.trim().toLowerCase();
  const shown = wanted ? list.filter((entry) => `${entry.name} ${entry.description ?? ""}`.toLowerCase().includes(wanted)) : list;
  return (
    <section aria-labelledby="market-title">
      <p>
        <Link to="/marketplaces">← All marketplaces</Link>
      </p>
      <h1 id="market-title">
        Marketplace <Untrusted text={name} />
      </h1>
      <ErrorNote error={entries.error} />
      {entries.loading && !entries.data && <p aria-busy="true">Loading its plugins…</p>}
      {entries.data && list.length === 0 && <p className="empty">This marketplace lists no plugins. Update it from the Marketplaces page once its owner publishes some.</p>}
      {list.length > 0 && (
        <div className="catalog-toolbar">
          <div className="grow">
            <label htmlFor="market-filter">Filter plugins</label>
            <input id="market-filter" type="search" value={filter} onChange={(event) => setFilter(event.target.value)} />
          </div>
        </div>
      )}
      <ul className="catalog-list" aria-label="Plugins in this marketplace">
        {shown.map((entry) => (
          <li key={entry.name}>
            <EntryCard marketplace={name} entry={entry} admin={admin} onInstalled={entries.reload} />
          </li>
        ))}
      </ul>
    </section>
  );
}

function EntryCard({ marketplace, entry, admin, onInstalled }: { readonly marketplace: string; readonly entry: MarketplaceEntry; readonly admin: boolean; readonly onInstalled: () => void }) {
  const [open, setOpen] = useState(false);
  const [preview, setPreview] = useState<MarketplacePreview>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [installed, setInstalled] = useState<string>();
  const panelId = `entry-${encodeURIComponent(entry.name).replace(/%/g, "_")}`;
  const toggle = () => {
    const next = !open;
    setOpen(next);
    if (next && !preview) marketplacePlugin(marketplace, entry.name).then(setPreview, setError);
  };
  const install = () => {
    setBusy(true);
    setError(undefined);
    installFromMarketplace(marketplace, entry.name)
      .then((plugin) => {
        setInstalled(`Installed ${revealBidi(plugin.name)} ${versionText(plugin.version)}.`);
        onInstalled();
      }, setError)
      .finally(() => setBusy(false));
  };
  const newer = entry.installed && entry.version !== undefined && entry.installed_version !== undefined && entry.version !== entry.installed_version;
  return (
    <article className="card">
      <div className="catalog-head">
        <h2>
          <Untrusted text={entry.name} />
        </h2>
        <span className="tag">{versionText(entry.version)}</span>
        <span className="tag"><Untrusted text={entry.source_type} /></span>
        {entry.installed && <span className="tag ok">installed {entry.installed_version ? versionText(entry.installed_version) : ""}</span>}
      </div>
      <p className="catalog-desc">
        <Untrusted text={entry.description} />
      </p>
      {installed && (
        <p role="status" className="catalog-notice">
          {installed}
        </p>
      )}
      <ErrorNote error={error} />
      <div className="catalog-entry-actions">
        <button type="button" className="secondary" aria-expanded={open} aria-controls={panelId} onClick={toggle}>
          {open ? "Hide details" : "Details"}
          <span className="catalog-sr"> of <Untrusted text={entry.name} /></span>
        </button>
        {entry.installed ? (
          <Link to={`/plugins/${encodeURIComponent(entry.name)}`}>
            {newer ? "Update it on its page" : "Open its page"}
            <span className="catalog-sr"> (<Untrusted text={entry.name} />)</span>
          </Link>
        ) : (
          admin && (
            <button type="button" disabled={busy} onClick={install}>
              {busy ? "Installing…" : "Install"}
              <span className="catalog-sr"> <Untrusted text={entry.name} /></span>
            </button>
          )
        )}
      </div>
      {open && (
        <div id={panelId} className="catalog-preview">
          {!preview && !error && <p aria-busy="true">Reading it…</p>}
          {preview?.note && (
            <p className="muted">
              <Untrusted text={preview.note} />
            </p>
          )}
          {preview?.preview && <PluginBrings plugin={preview.preview} headingLevel={3} />}
        </div>
      )}
    </article>
  );
}

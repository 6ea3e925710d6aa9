// Marketplaces: the ones added by name (GET /api/marketplaces), adding one (an administrator: a GitHub
// owner/repo, a git URL, npm:package, a marketplace.json URL or a local folder), updating and removing
// it; /marketplaces/:name browses its plugins (catalog/marketplace-detail.tsx).
import { useState, type FormEvent } from "react";
import { Link, Route, Routes, useParams } from "react-router";
import { addMarketplace, listMarketplaces, removeMarketplace, updateMarketplace, type MarketplaceView } from "../api/catalog-api.js";
import { useResource } from "../api/use-resource.js";
import { ErrorNote } from "../components/error-note.js";
import { MarketplaceDetailView } from "./catalog/marketplace-detail.js";
import { Untrusted } from "./catalog/untrusted-text.js";
import type { PageProps } from "./page-list.js";
import "./catalog/catalog.css";

export function MarketplacesPage({ session }: PageProps) {
  return (
    <Routes>
      <Route index element={<MarketplacesList session={session} />} />
      <Route path=":name" element={<MarketplaceDetailRoute session={session} />} />
    </Routes>
  );
}

function MarketplaceDetailRoute({ session }: PageProps) {
  const name = useParams().name ?? "";
  return <MarketplaceDetailView name={name} session={session} />;
}

/** Where a marketplace comes from, in one line. */
export function sourceText(source: Readonly<Record<string, unknown>>): string {
  const value = source.repo ?? source.url ?? source.package ?? source.path;
  return `${String(source.source ?? "source")}${typeof value === "string" ? ` ${value}` : ""}`;
}

function MarketplacesList({ session }: PageProps) {
  const markets = useResource((signal) => listMarketplaces(signal));
  const [error, setError] = useState<unknown>();
  const admin = session.user?.role === "admin";
  const list = markets.data?.marketplaces ?? [];
  return (
    <section aria-labelledby="markets-title">
      <h1 id="markets-title">Marketplaces</h1>
      <p className="muted">A marketplace lists plugins. Browse one to see what each plugin brings and costs before installing it.</p>
      <ErrorNote error={error ?? markets.error} />
      {markets.loading && !markets.data && <p aria-busy="true">Loading marketplaces…</p>}
      {markets.data && list.length === 0 && (
        <p className="empty">
          {admin ? "No marketplaces yet. Add a marketplace below (a GitHub owner/repo, a git URL, npm:package or a local folder) to browse and install its plugins." : "No marketplaces yet. Ask an administrator to add a marketplace."}
        </p>
      )}
      <ul className="catalog-list" aria-label="Marketplaces">
        {list.map((market) => (
          <li key={market.name}>
            <MarketplaceCard market={market} admin={admin} onChanged={markets.reload} onError={setError} />
          </li>
        ))}
      </ul>
      {admin && <AddMarketplaceForm onAdded={markets.reload} />}
    </section>
  );
}

function MarketplaceCard({ market, admin, onChanged, onError }: { readonly market: MarketplaceView; readonly admin: boolean; readonly onChanged: () => void; readonly onError: (error: unknown) => void }) {
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [note, setNote] = useState<string>();
  const act = (work: () => Promise<unknown>, after?: (result: unknown) => void) => {
    setBusy(true);
    onError(undefined);
    work()
      .then((result) => {
        after?.(result);
        onChanged();
      }, onError)
      .finally(() => setBusy(false));
  };
  const pin = market.pinned?.commit ? `commit ${market.pinned.commit.slice(0, 12)}` : market.pinned?.version ? `version ${market.pinned.version}` : undefined;
  return (
    <article className="card">
      <div className="catalog-head">
        <h2>
          <Link to={`/marketplaces/${encodeURIComponent(market.name)}`}>
            <Untrusted text={market.name} />
          </Link>
        </h2>
        <span className="tag">{market.plugins} plugins</span>
      </div>
      <p className="catalog-desc">
        <Untrusted text={market.description} />
      </p>
      <p className="muted">
        <Untrusted text={sourceText(market.source)} />
        {pin && <>, {pin}</>}
        {market.updated_at && <>, fetched {new Date(market.updated_at).toLocaleString()}</>}
      </p>
      {market.problems.length > 0 && (
        <ul>
          {market.problems.map((problem, index) => (
            <li key={index}>
              <Untrusted text={problem} />
            </li>
          ))}
        </ul>
      )}
      {note && (
        <p role="status" className="catalog-notice">
          {note}
        </p>
      )}
      {admin && (
        <div className="catalog-actions">
          <button type="button" className="secondary" disabled={busy} onClick={() => act(() => updateMarketplace(market.name), () => setNote("Fetched again: its plugins show their newest versions."))}>
            Update<span className="catalog-sr"> <Untrusted text={market.name} /></span>
          </button>
          {confirming ? (
            <>
              <button type="button" className="danger" disabled={busy} onClick={() => act(() => removeMarketplace(market.name))}>
                Remove it (installed plugins stay)
              </button>
              <button type="button" className="secondary" onClick={() => setConfirming(false)}>
                Keep it
              </button>
            </>
          ) : (
            <button type="button" className="secondary" onClick={() => setConfirming(true)}>
              Remove…<span className="catalog-sr"> <Untrusted text={market.name} /></span>
            </button>
          )}
        </div>
      )}
    </article>
  );
}

function AddMarketplaceForm({ onAdded }: { readonly onAdded: () => void }) {
  const [source, setSource] = useState("");
  const [name, setName] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [added, setAdded] = useState<MarketplaceView>();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setAdded(undefined);
    addMarketplace(source.trim(), name.trim() || undefined)
      .then((market) => {
        setAdded(market);
        setSource("");
        setName("");
        onAdded();
      }, setError)
      .finally(() => setBusy(false));
  };
  return (
    <section className="catalog-section" aria-labelledby="add-market-title">
      <h2 id="add-market-title">Add a marketplace</h2>
      <form className="catalog-form" onSubmit={submit}>
        <label htmlFor="market-source">Source</label>
        <input id="market-source" type="text" required value={source} onChange={(event) => setSource(event.target.value)} aria-describedby="market-source-hint" />
        <span id="market-source-hint" className="catalog-hint">
          owner/repo (GitHub, optionally #ref), a git URL, npm:package, the URL of a marketplace.json, or a folder on the gateway's machine.
        </span>
        <label htmlFor="market-name">Name (optional)</label>
        <input id="market-name" type="text" value={name} onChange={(event) => setName(event.target.value)} aria-describedby="market-name-hint" />
        <span id="market-name-hint" className="catalog-hint">
          Default: the name in its marketplace.json.
        </span>
        <div>
          <button type="submit" disabled={busy}>
            {busy ? "Adding…" : "Add marketplace"}
          </button>
        </div>
      </form>
      <ErrorNote error={error} />
      {added && (
        <p role="status" className="catalog-notice">
          Added{" "}
          <Link to={`/marketplaces/${encodeURIComponent(added.name)}`}>
            <Untrusted text={added.name} />
          </Link>{" "}
          with {added.plugins} plugins.
        </p>
      )}
    </section>
  );
}

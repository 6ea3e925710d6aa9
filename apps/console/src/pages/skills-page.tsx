// Skills: every skill as it applies to the caller (their own choice over the administrator's default),
// searched with the engine search_skills uses (GET /api/skills/search), switched on and off, installed
// from an archive; /skills/:identity shows one rendered (catalog/skill-detail.tsx).
import { useId, useMemo, useState, type FormEvent } from "react";
import { Link, Route, Routes, useParams } from "react-router";
import { installSkillArchive, listSkills, searchSkills, setSkillEnabled, type SkillDetail, type SkillSearchResult, type SkillSummary } from "../api/catalog-api.js";
import { useResource } from "../api/use-resource.js";
import { ErrorNote } from "../components/error-note.js";
import { SkillDetailView } from "./catalog/skill-detail.js";
import { Untrusted } from "./catalog/untrusted-text.js";
import type { PageProps } from "./page-list.js";
import "./catalog/catalog.css";

/** Skills shown at a time in the list; "Show more" adds as many again. */
const pageSize = 100;

export function SkillsPage({ session }: PageProps) {
  return (
    <Routes>
      <Route index element={<SkillsList session={session} />} />
      <Route path="*" element={<SkillDetailRoute session={session} />} />
    </Routes>
  );
}

function SkillDetailRoute({ session }: PageProps) {
  const identity = useParams()["*"] ?? "";
  return <SkillDetailView identity={identity} session={session} />;
}

function SkillsList({ session }: PageProps) {
  const skills = useResource((signal) => listSkills(signal));
  const [query, setQuery] = useState("");
  const [results, setResults] = useState<{ query: string; results: SkillSearchResult[] }>();
  const [category, setCategory] = useState("");
  const [shown, setShown] = useState(pageSize);
  const [error, setError] = useState<unknown>();
  const all = useMemo(() => skills.data?.skills ?? [], [skills.data]);
  const categories = useMemo(() => [...new Set(all.map((skill) => skill.category))].sort(), [all]);
  const listed = category ? all.filter((skill) => skill.category === category) : all;

  const search = (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    if (query.trim() === "") return setResults(undefined);
    searchSkills(query.trim()).then(setResults, setError);
  };

  return (
    <section aria-labelledby="skills-title">
      <h1 id="skills-title">Skills</h1>
      <form role="search" className="catalog-toolbar" onSubmit={search}>
        <div className="grow">
          <label htmlFor="skill-search">Search skills</label>
          <input id="skill-search" type="search" value={query} onChange={(event) => setQuery(event.target.value)} placeholder="What should the agent do? e.g. fill in a PDF form" />
        </div>
        <button type="submit">Search</button>
        {results && (
          <button type="button" className="secondary" onClick={() => (setResults(undefined), setQuery(""))}>
            Clear search
          </button>
        )}
      </form>
      <ErrorNote error={error ?? skills.error} />
      {results ? <SearchResults found={results} /> : null}
      {!results && skills.data && (
        <>
          <div className="catalog-toolbar">
            <div>
              <label htmlFor="skill-category">Category</label>
              <select id="skill-category" value={category} onChange={(event) => (setCategory(event.target.value), setShown(pageSize))}>
                <option value="">All ({all.length})</option>
                {categories.map((name) => (
                  <option key={name} value={name}>
                    {name}
                  </option>
                ))}
              </select>
            </div>
            <button type="button" className="secondary" onClick={skills.reload}>
              Refresh
            </button>
          </div>
          {all.length === 0 ? (
            <p className="empty">No skills yet. Install a skill archive below, or install a plugin that brings skills from the <Link to="/marketplaces">Marketplaces</Link> page.</p>
          ) : (
            <ul className="catalog-list" aria-label="Skills">
              {listed.slice(0, shown).map((skill) => (
                <li key={skill.identity}>
                  <SkillCard skill={skill} onChanged={skills.reload} onError={setError} />
                </li>
              ))}
            </ul>
          )}
          {listed.length > shown && (
            <button type="button" className="secondary" onClick={() => setShown(shown + pageSize)}>
              Show more ({listed.length - shown} left)
            </button>
          )}
        </>
      )}
      {skills.loading && !skills.data && <p aria-busy="true">Loading skills…</p>}
      <InstallSkillForm admin={session.user?.role === "admin"} onInstalled={skills.reload} />
    </section>
  );
}

function SearchResults({ found }: { readonly found: { query: string; results: SkillSearchResult[] } }) {
  return (
    <section aria-label="Search results">
      <h2>
        Results for “<Untrusted text={found.query} />”
      </h2>
      {found.results.length === 0 ? (
        <p className="empty">No enabled skill matches. Try other words, or enable a skill that is switched off.</p>
      ) : (
        <ol className="catalog-list">
          {found.results.map((hit) => (
            <li key={hit.identity} className="card">
              <div className="catalog-head">
                <h3>
                  <Link to={`/skills/${encodeURIComponent(hit.identity)}`}>
                    <Untrusted text={hit.name} />
                  </Link>
                </h3>
                <code className="wrap muted">
                  <Untrusted text={hit.identity} />
                </code>
                <span className="tag">score {hit.score.toFixed(2)}</span>
              </div>
              <p className="catalog-desc">
                <Untrusted text={hit.description} />
              </p>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

function SkillCard({ skill, onChanged, onError }: { readonly skill: SkillSummary; readonly onChanged: () => void; readonly onError: (error: unknown) => void }) {
  const [busy, setBusy] = useState(false);
  const toggle = () => {
    setBusy(true);
    onError(undefined);
    setSkillEnabled(skill.identity, !skill.enabled)
      .then(onChanged, onError)
      .finally(() => setBusy(false));
  };
  const id = useId();
  return (
    <article className="card">
      <div className="catalog-head">
        <h2>
          <Link to={`/skills/${encodeURIComponent(skill.identity)}`}>
            <Untrusted text={skill.name} />
          </Link>
        </h2>
        <span className="tag">{skill.category}</span>
        {skill.trusted ? <span className="tag ok">trusted</span> : <span className="tag">untrusted</span>}
        {!skill.enabled && <span className="tag warn">off</span>}
      </div>
      <p className="catalog-desc catalog-clamp">
        <Untrusted text={skill.description} />
      </p>
      {skill.disabled_reason && (
        <p className="muted">
          <Untrusted text={skill.disabled_reason} />
        </p>
      )}
      <div className="catalog-actions">
        <input id={id} type="checkbox" checked={skill.enabled} disabled={busy || skill.disabled_reason !== null} onChange={toggle} />
        <label htmlFor={id} className="check">
          Enabled
          <span className="catalog-sr"> (<Untrusted text={skill.name} />)</span>
        </label>
        {skill.enabled !== skill.default_enabled && <span className="muted">your choice; the default is {skill.default_enabled ? "on" : "off"}</span>}
      </div>
    </article>
  );
}

function InstallSkillForm({ admin, onInstalled }: { readonly admin: boolean; readonly onInstalled: () => void }) {
  const [file, setFile] = useState<File>();
  const [overwrite, setOverwrite] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [installed, setInstalled] = useState<SkillDetail>();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!file) return setError(new Error("Choose a .skill or .zip archive first."));
    setBusy(true);
    setError(undefined);
    setInstalled(undefined);
    const form = event.currentTarget;
    installSkillArchive(file, overwrite)
      .then((skill) => {
        setInstalled(skill);
        setFile(undefined);
        form.reset();
        onInstalled();
      }, setError)
      .finally(() => setBusy(false));
  };
  return (
    <section className="catalog-section" aria-labelledby="install-skill-title">
      <h2 id="install-skill-title">Install a skill</h2>
      <p className="muted">
        {admin
          ? "Upload a .skill or .zip archive: it becomes a custom skill for everyone, untrusted (its scripts run in the sandbox)."
          : "Upload a .skill or .zip archive: it becomes your own skill, seen by you alone; its scripts run in the sandbox."}
      </p>
      <form className="catalog-form" onSubmit={submit}>
        <label htmlFor="skill-archive">Skill archive (.skill or .zip)</label>
        <input id="skill-archive" type="file" accept=".skill,.zip,application/zip" onChange={(event) => setFile(event.target.files?.[0])} />
        <span className="check">
          <input id="skill-overwrite" type="checkbox" checked={overwrite} onChange={(event) => setOverwrite(event.target.checked)} />
          <label htmlFor="skill-overwrite" className="check">
            Replace an installed skill of the same name
          </label>
        </span>
        <div>
          <button type="submit" disabled={busy}>
            {busy ? "Installing…" : "Install"}
          </button>
        </div>
      </form>
      <ErrorNote error={error} />
      {installed && (
        <p role="status" className="catalog-notice">
          Installed{" "}
          <Link to={`/skills/${encodeURIComponent(installed.identity)}`}>
            <Untrusted text={installed.identity} />
          </Link>
          {installed.warnings.length > 0 && <> with {installed.warnings.length} warning{installed.warnings.length === 1 ? "" : "s"}</>}.
        </p>
      )}
    </section>
  );
}

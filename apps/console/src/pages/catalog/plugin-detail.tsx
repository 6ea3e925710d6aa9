// One installed plugin (/plugins/:name): its version and where it came from, update (the version
// change shown), rollback to the version an update replaced, enable, remove; what it brings and its
// context cost. Only administrators change plugins: others see the page without the controls.
import { useId, useState } from "react";
import { Link, useNavigate } from "react-router";
import type { Session } from "../../api/session.js";
import { getPlugin, removePlugin, rollbackPlugin, setPluginEnabled, updatePlugin, type PluginDetail, type PluginVersion } from "../../api/catalog-api.js";
import { useResource } from "../../api/use-resource.js";
import { ConfirmButton } from "../../components/confirm-button.js";
import { ErrorNote } from "../../components/error-note.js";
import { revealBidi } from "../../text/reveal-bidi.js";
import { PluginBrings } from "./plugin-brings.js";
import { Untrusted, versionText } from "./untrusted-text.js";

/** A version for people: its version string, else a short commit. */
function describe(version: PluginVersion | undefined): string {
  if (!version) return "unknown";
  if (version.version) return versionText(version.version);
  if (version.commit) return `commit ${version.commit.slice(0, 12)}`;
  return "no version";
}

export function PluginDetailView({ name, session }: { readonly name: string; readonly session: Session }) {
  const plugin = useResource((signal) => getPlugin(name, signal), name);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState<string>();
  const [done, setDone] = useState<string>();
  const navigate = useNavigate();
  const toggleId = useId();
  const admin = session.user?.role === "admin";
  const data = plugin.data;

  const act = (label: string, work: () => Promise<PluginDetail | void>, message: (result: PluginDetail | void) => string | undefined) => {
    setBusy(label);
    setError(undefined);
    setDone(undefined);
    work()
      .then((result) => {
        setDone(message(result));
        plugin.reload();
      }, setError)
      .finally(() => setBusy(undefined));
  };
  const change = (verb: string) => (result: PluginDetail | void) => (result ? `${verb} ${revealBidi(result.name)}: ${describe(result.previous)} → ${versionText(result.version)}.` : undefined);

  return (
    <article aria-labelledby="plugin-title">
      <p>
        <Link to="/plugins">← All plugins</Link>
      </p>
      {!data && !plugin.error && (
        <h1 id="plugin-title" aria-busy="true">
          Loading plugin…
        </h1>
      )}
      {plugin.error !== undefined && <h1 id="plugin-title">Plugin not shown</h1>}
      <ErrorNote error={plugin.error} />
      {done && (
        <p role="status" className="catalog-notice">
          {done}
        </p>
      )}
      <ErrorNote error={error} />
      {data && (
        <>
          <h1 id="plugin-title">
            <Untrusted text={data.name} />
          </h1>
          <p className="catalog-desc">
            <Untrusted text={data.description} />
          </p>
          <dl className="catalog-facts">
            <dt>Version</dt>
            <dd>{versionText(data.version)}</dd>
            <dt>State</dt>
            <dd>{data.state}</dd>
            <dt>Trust</dt>
            <dd>{data.trusted ? "trusted: its skills' scripts run on the host, confined" : "untrusted: its skills' scripts run in the sandbox"}</dd>
            {data.versions && (
              <>
                <dt>From</dt>
                <dd>
                  the marketplace{" "}
                  <Link to={`/marketplaces/${encodeURIComponent(data.versions.marketplace)}`}>
                    <Untrusted text={data.versions.marketplace} />
                  </Link>
                </dd>
                <dt>Available</dt>
                <dd>
                  {describe(data.versions.available)}
                  {data.versions.update_available ? " (an update is available)" : " (up to date with the marketplace's copy)"}
                </dd>
              </>
            )}
            {data.rollback && (
              <>
                <dt>Kept for rollback</dt>
                <dd>{describe(data.rollback)}</dd>
              </>
            )}
          </dl>
          {admin && (
            <div className="catalog-actions">
              <input id={toggleId} type="checkbox" checked={data.enabled} disabled={busy !== undefined} onChange={() => act("enable", () => setPluginEnabled(data.name, !data.enabled), () => undefined)} />
              <label htmlFor={toggleId} className="check">
                Enabled
              </label>
              {data.versions && (
                <button type="button" disabled={busy !== undefined} onClick={() => act("update", () => updatePlugin(data.name), change("Updated"))}>
                  {busy === "update" ? "Updating…" : "Update"}
                </button>
              )}
              {data.rollback && (
                <button type="button" className="secondary" disabled={busy !== undefined} onClick={() => act("rollback", () => rollbackPlugin(data.name), change("Rolled back"))}>
                  {busy === "rollback" ? "Rolling back…" : `Roll back to ${describe(data.rollback)}`}
                </button>
              )}
              <ConfirmButton label="Remove" confirm="Remove it for good" disabled={busy !== undefined} onConfirm={() => act("remove", () => removePlugin(data.name), () => (navigate("/plugins"), undefined))} />
            </div>
          )}
          {data.problems.length > 0 && (
            <section className="catalog-section" aria-label="Problems">
              <h2>Problems</h2>
              <ul>
                {data.problems.map((problem, index) => (
                  <li key={index}>
                    <span className={problem.severity === "error" ? "tag warn" : "tag"}>{problem.severity}</span> <Untrusted text={`${problem.file}: ${problem.message}`} />
                  </li>
                ))}
              </ul>
            </section>
          )}
          <PluginBrings plugin={data} linkSkills />
        </>
      )}
    </article>
  );
}

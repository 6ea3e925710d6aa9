// One skill (/skills/:identity): what it is and who may use it, its context cost, its script tools
// and their trust, its files, and its SKILL.md rendered through the one sanitising Markdown component.
import { useId, useState } from "react";
import { Link, useNavigate } from "react-router";
import type { Session } from "../../api/session.js";
import { deleteSkill, getSkill, getSkillContent, setSkillEnabled } from "../../api/catalog-api.js";
import { useResource } from "../../api/use-resource.js";
import { ConfirmButton } from "../../components/confirm-button.js";
import { ErrorNote } from "../../components/error-note.js";
import { Markdown } from "../../components/markdown.js";
import { ContextCost } from "./context-cost.js";
import { ScriptTools } from "./script-tools.js";
import { Untrusted } from "./untrusted-text.js";

export function SkillDetailView({ identity, session }: { readonly identity: string; readonly session: Session }) {
  const skill = useResource((signal) => getSkill(identity, signal), identity);
  const content = useResource((signal) => getSkillContent(identity, signal), identity);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const navigate = useNavigate();
  const toggleId = useId();
  const admin = session.user?.role === "admin";
  const data = skill.data;

  const act = (work: () => Promise<unknown>, after: () => void) => {
    setBusy(true);
    setError(undefined);
    work()
      .then(after, setError)
      .finally(() => setBusy(false));
  };
  // The API decides: an administrator deletes custom skills, a user their own `user:` skills.
  const deletable = data && ((admin && data.category === "custom") || data.category === "user");

  return (
    <article aria-labelledby="skill-title">
      <p>
        <Link to="/skills">← All skills</Link>
      </p>
      {!data && !skill.error && (
        <h1 id="skill-title" aria-busy="true">
          Loading skill…
        </h1>
      )}
      {skill.error !== undefined && <h1 id="skill-title">Skill not shown</h1>}
      <ErrorNote error={skill.error ?? error} />
      {data && (
        <>
          <h1 id="skill-title">
            <Untrusted text={data.name} />
          </h1>
          <p className="catalog-desc">
            <Untrusted text={data.description} />
          </p>
          <dl className="catalog-facts">
            <dt>Identity</dt>
            <dd>
              <code className="wrap">
                <Untrusted text={data.identity} />
              </code>
            </dd>
            <dt>Model reads it at</dt>
            <dd>
              <code className="wrap">
                <Untrusted text={data.location} />
              </code>
            </dd>
            <dt>Trust</dt>
            <dd>{data.trusted ? "trusted: its scripts run on the host, confined" : "untrusted: its scripts run in the sandbox"}</dd>
            <dt>Scripts approved</dt>
            <dd>{data.scripts_approved ? "yes, for every thread" : "no"}</dd>
            {data.license && (
              <>
                <dt>License</dt>
                <dd>
                  <Untrusted text={data.license} />
                </dd>
              </>
            )}
            {data.allowed_tools.length > 0 && (
              <>
                <dt>Allowed tools</dt>
                <dd>
                  <Untrusted text={data.allowed_tools.join(", ")} />
                </dd>
              </>
            )}
            <dt>Invocation</dt>
            <dd>
              {data.disable_model_invocation ? "only when a user runs it" : "the model may use it"}
              {data.user_invocable ? ", and users may run it as a slash command" : ""}
            </dd>
          </dl>
          {data.disabled_reason && (
            <p className="muted">
              <Untrusted text={data.disabled_reason} />
            </p>
          )}
          <div className="catalog-actions">
            <input
              id={toggleId}
              type="checkbox"
              checked={data.enabled}
              disabled={busy || data.disabled_reason !== null}
              onChange={() => act(() => setSkillEnabled(data.identity, !data.enabled), skill.reload)}
            />
            <label htmlFor={toggleId} className="check">
              Enabled {!admin && data.enabled !== data.default_enabled ? `(your choice; the default is ${data.default_enabled ? "on" : "off"})` : ""}
            </label>
            {deletable && <ConfirmButton label="Delete" confirm="Delete it for good" disabled={busy} onConfirm={() => act(() => deleteSkill(data.identity), () => navigate("/skills"))} />}
          </div>
          {data.warnings.length > 0 && (
            <section className="catalog-section" aria-label="Warnings">
              <h2>Warnings</h2>
              <ul>
                {data.warnings.map((warning, index) => (
                  <li key={index}>
                    <Untrusted text={warning} />
                  </li>
                ))}
              </ul>
            </section>
          )}
          <ContextCost cost={content.data?.context_cost} bodyTokens={content.data?.context_cost.body_tokens} />
          <ScriptTools tools={data.script_tools} />
        </>
      )}
      <ErrorNote error={data ? content.error : undefined} />
      {data && content.data && (
        <>
          <section className="catalog-section" aria-label="Files">
            <h2>Files ({content.data.files.length}{content.data.files_truncated ? "+" : ""})</h2>
            <ul className="catalog-files">
              {content.data.files.map((file) => (
                <li key={file.path}>
                  <code className="wrap">
                    <Untrusted text={file.path} />
                  </code>{" "}
                  <span className="muted">{file.kind === "link" ? "link (not followed)" : `${file.bytes.toLocaleString("en")} bytes`}</span>
                </li>
              ))}
            </ul>
          </section>
          <section className="catalog-section" aria-label="SKILL.md">
            <h2>SKILL.md</h2>
            {content.data.body_truncated && <p className="muted">Cut at 256 KiB.</p>}
            <Markdown source={content.data.body} className="catalog-body" />
          </section>
        </>
      )}
    </article>
  );
}

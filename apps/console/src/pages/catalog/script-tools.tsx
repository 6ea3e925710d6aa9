// Script tools a skill or plugin brings, with their trust as the gateway reports it: trusted code
// runs on the host (confined), untrusted code in the sandbox; whether it asks first; whether it can run here.
import type { ScriptToolView } from "../../api/catalog-api.js";
import { Untrusted } from "./untrusted-text.js";

const approvalText: Record<string, string> = {
  "per-thread": "yes, its first call in each thread",
  approved: "no: an administrator approved its scripts",
  "not-required": "no",
};

export function ScriptTools({ tools, headingLevel = 2 }: { readonly tools: readonly ScriptToolView[]; readonly headingLevel?: 2 | 3 }) {
  const Heading = headingLevel === 2 ? "h2" : "h3";
  return (
    <section className="catalog-section" aria-label="Script tools">
      <Heading>Script tools</Heading>
      {tools.length === 0 ? (
        <p className="muted">No script tools: it runs no code of its own.</p>
      ) : (
        <div className="catalog-table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col">Trust</th>
                <th scope="col">Asks first</th>
                <th scope="col">Runs here</th>
              </tr>
            </thead>
            <tbody>
              {tools.map((tool) => (
                <tr key={`${tool.skill}/${tool.name}`}>
                  <td>
                    <code className="wrap">
                      <Untrusted text={tool.name} />
                    </code>{" "}
                    <span className="muted">
                      ({tool.runtime}, <Untrusted text={tool.script} />)
                    </span>
                  </td>
                  <td>{tool.trusted ? <span className="tag ok">trusted: on the host, confined</span> : <span className="tag">untrusted: in the sandbox</span>}</td>
                  <td>{approvalText[tool.approval] ?? tool.approval}</td>
                  <td>{tool.available ? "yes" : <Untrusted text={`no: ${tool.reason ?? "unavailable"}`} />}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

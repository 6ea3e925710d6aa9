// What a plugin brings, installed or previewed from a marketplace: skills, commands, sub-agents, MCP
// servers, hooks (and whether each runs here), script tools with their trust, and its context cost.
import type { ReactNode } from "react";
import { Link } from "react-router";
import type { PluginDetail } from "../../api/catalog-api.js";
import { StatusBadge } from "../operations/status-badge.js";
import { ContextCost } from "./context-cost.js";
import { ScriptTools } from "./script-tools.js";
import { Untrusted } from "./untrusted-text.js";

export function PluginBrings({ plugin, headingLevel = 2, linkSkills = false }: { readonly plugin: PluginDetail; readonly headingLevel?: 2 | 3; readonly linkSkills?: boolean }) {
  const Heading = headingLevel === 2 ? "h2" : "h3";
  const nothing = plugin.skills.length + plugin.commands.length + plugin.agents.length + plugin.servers.length + plugin.hooks.handlers.length === 0;
  return (
    <>
      <section className="catalog-section" aria-label="What it brings">
        <Heading>What it brings</Heading>
        {nothing && <p className="muted">Nothing the agent uses: no skills, commands, sub-agents, servers or hooks.</p>}
        <Part title={`Skills (${plugin.skills.length})`} show={plugin.skills.length > 0}>
          {plugin.skills.map((skill) => (
            <li key={skill.identity}>
              {linkSkills ? (
                <Link to={`/skills/${encodeURIComponent(skill.identity)}`}>
                  <Untrusted text={skill.name} />
                </Link>
              ) : (
                <strong>
                  <Untrusted text={skill.name} />
                </strong>
              )}
              : <Untrusted text={skill.description} />
            </li>
          ))}
        </Part>
        <Part title={`Commands (${plugin.commands.length})`} show={plugin.commands.length > 0}>
          {plugin.commands.map((command) => (
            <li key={command.invocation}>
              <code className="wrap">
                <Untrusted text={command.invocation} />
              </code>
              : <Untrusted text={command.description} />
            </li>
          ))}
        </Part>
        <Part title={`Sub-agents (${plugin.agents.length})`} show={plugin.agents.length > 0}>
          {plugin.agents.map((agent) => (
            <li key={agent.name}>
              <strong>
                <Untrusted text={agent.name} />
              </strong>
              : <Untrusted text={agent.description} />
            </li>
          ))}
        </Part>
        <Part title={`MCP servers (${plugin.servers.length})`} show={plugin.servers.length > 0}>
          {plugin.servers.map((server) => (
            <li key={server.name}>
              <code className="wrap">
                <Untrusted text={server.name} />
              </code>{" "}
              ({server.transport}) <StatusBadge status={server.status} /> <Untrusted text={server.reason} className="muted" />
            </li>
          ))}
        </Part>
        <Part title={`Hooks (${plugin.hooks.handlers.length})`} show={plugin.hooks.handlers.length > 0}>
          {plugin.hooks.handlers.map((hook, index) => (
            <li key={index}>
              <strong><Untrusted text={hook.event} /></strong>
              {hook.matcher !== null && (
                <>
                  {" "}
                  on <code className="wrap"><Untrusted text={hook.matcher} /></code>
                </>
              )}
              : {hook.command !== null ? <code className="wrap"><Untrusted text={hook.command} /></code> : <Untrusted text={hook.type} />}{" "}
              <span className={hook.runs ? "tag ok" : "tag"}>{hook.runs ? "runs in the sandbox" : "does not run"}</span> <Untrusted text={hook.reason} className="muted" />
            </li>
          ))}
        </Part>
      </section>
      <ScriptTools tools={plugin.script_tools} headingLevel={headingLevel} />
      <ContextCost cost={plugin.context_cost} headingLevel={headingLevel} />
    </>
  );
}

function Part({ title, show, children }: { readonly title: string; readonly show: boolean; readonly children: ReactNode }) {
  if (!show) return null;
  return (
    <div>
      <p className="catalog-desc">
        <strong>{title}</strong>
      </p>
      <ul>{children}</ul>
    </div>
  );
}

import { nearMatches, ThinktankError } from "@thinktank/core";
import type { AgentDefinition } from "./agent-types.js";
import type { AgentsSnapshot } from "./agents-snapshot.js";

export interface FindAgentOptions {
  /** Find disabled agents too (the gateway's detail and settings); by default they are not found, for running. @default false */
  readonly includeDisabled?: boolean;
}

/**
 * One agent by identity (`plugin:brand-voice:quality-assurance`), by Claude Code's plugin form
 * (`brand-voice:quality-assurance`, what plugin prompts write as `subagent_type`) or by bare name
 * when it is unique among the agents that can be found. AGENT_NOT_FOUND with near names when
 * nothing matches (saying "disabled" when only a disabled agent does); AGENT_AMBIGUOUS listing the
 * identities when a bare name matches several.
 */
export function findAgent(snapshot: AgentsSnapshot, nameOrIdentity: string, options: FindAgentOptions = {}): AgentDefinition {
  const wanted = nameOrIdentity.trim();
  const findable = (agent: AgentDefinition): boolean => options.includeDisabled === true || agent.enabled;
  const exact = snapshot.agents.find((agent) => agent.identity === wanted) ?? snapshot.agents.find((agent) => agent.source === "plugin" && `${agent.plugin}:${agent.name}` === wanted);
  if (exact) {
    if (findable(exact)) return exact;
    throw new ThinktankError("AGENT_NOT_FOUND", `agent ${exact.identity} is disabled${exact.disabledReason ? ` (${exact.disabledReason})` : ""}`, { details: { identity: exact.identity, disabled: true } });
  }
  const named = snapshot.agents.filter((agent) => agent.name === wanted);
  const candidates = named.filter(findable);
  const [first, ...others] = candidates;
  if (first && others.length === 0) return first;
  if (first) {
    const identities = candidates.map((agent) => agent.identity);
    throw new ThinktankError("AGENT_AMBIGUOUS", `"${wanted}" names ${identities.length} agents (${identities.join(", ")}); use the identity`, { details: { identities } });
  }
  if (named.length > 0) {
    const identities = named.map((agent) => agent.identity);
    throw new ThinktankError("AGENT_NOT_FOUND", `agent "${wanted}" is disabled (${identities.join(", ")})`, { details: { identities, disabled: true } });
  }
  const usable = snapshot.agents.filter(findable);
  const near = nearMatches(wanted, [...new Set(usable.map((agent) => agent.name))], 5).flatMap((name) => usable.filter((agent) => agent.name === name).map((agent) => agent.identity));
  const hint = near.length > 0 ? `; did you mean ${near.join(", ")}?` : "";
  throw new ThinktankError("AGENT_NOT_FOUND", `no agent named "${wanted}"${hint}`, { details: { suggestions: near } });
}

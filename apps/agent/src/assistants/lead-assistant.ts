import crypto from "node:crypto";
import { ThinktankError } from "@thinktank/core";
import { leadAgentGraphId } from "../graph/build-lead-agent-graph.js";

/** The assistant record the API lists: one fixed assistant for graph lead_agent. */
export interface AssistantRecord {
  readonly assistant_id: string;
  readonly graph_id: string;
  readonly name: string;
  readonly description: string;
  readonly config: Record<string, unknown>;
  readonly context: Record<string, unknown>;
  readonly metadata: Record<string, unknown>;
  readonly version: number;
  readonly created_at: string;
  readonly updated_at: string;
}

/**
 * LangGraph servers give a graph's default assistant the UUIDv5 of the graph id in this namespace,
 * so clients that computed the id themselves find it here too.
 */
const graphNamespace = "6ba7b821-9dad-11d1-80b4-00c04fd430c8";

export const leadAssistantId = uuidV5(leadAgentGraphId, graphNamespace);

export function leadAssistant(createdAt: string): AssistantRecord {
  return {
    assistant_id: leadAssistantId,
    graph_id: leadAgentGraphId,
    name: leadAgentGraphId,
    description: "Thinktank's agent: skills, plugins, script tools and MCP servers with progressive disclosure and code execution.",
    config: {},
    context: {},
    metadata: { created_by: "system" },
    version: 1,
    created_at: createdAt,
    updated_at: createdAt,
  };
}

/** Accepts the assistant id or the graph id (clients use either); throws ASSISTANT_NOT_FOUND otherwise. */
export function resolveAssistantId(id: string): string {
  if (id === leadAssistantId || id === leadAgentGraphId) return leadAssistantId;
  throw new ThinktankError("ASSISTANT_NOT_FOUND", `no assistant or graph '${id}': this server serves graph ${leadAgentGraphId} (assistant ${leadAssistantId})`);
}

function uuidV5(name: string, namespace: string): string {
  const hash = crypto.createHash("sha1").update(Buffer.from(namespace.replaceAll("-", ""), "hex")).update(name).digest();
  hash[6] = ((hash[6] as number) & 0x0f) | 0x50;
  hash[8] = ((hash[8] as number) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

import crypto from "node:crypto";
import type { Assistant } from "@thinktank/runs";
import { leadAgentGraphId } from "../graph/build-lead-agent-graph.js";

/**
 * LangGraph servers give a graph's default assistant the UUIDv5 of the graph id in this namespace,
 * so clients that computed the id themselves find it here too.
 */
const graphNamespace = "6ba7b821-9dad-11d1-80b4-00c04fd430c8";

export const leadAssistantId = uuidV5(leadAgentGraphId, graphNamespace);

/** The built-in assistant of graph lead_agent: everyone's, read-only, never deleted (AssistantService.builtIn). */
export function leadAssistant(createdAt: string): Assistant {
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

function uuidV5(name: string, namespace: string): string {
  const hash = crypto.createHash("sha1").update(Buffer.from(namespace.replaceAll("-", ""), "hex")).update(name).digest();
  hash[6] = ((hash[6] as number) & 0x0f) | 0x50;
  hash[8] = ((hash[8] as number) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

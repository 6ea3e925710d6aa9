import type { JsonObject, MultitaskStrategy } from "../persistence/agent-records.js";
import { supportedStreamModes, type ApiStreamMode } from "./stream-event-mapper.js";

/** The body of a run request (POST /threads/:id/runs[/stream|/wait], POST /runs[...]) after validation. */
export interface RunRequest {
  readonly assistant_id: string;
  readonly input?: unknown;
  readonly command?: { readonly resume?: unknown; readonly update?: unknown; readonly goto?: unknown };
  readonly config?: { readonly configurable?: JsonObject; readonly recursion_limit?: number; readonly tags?: string[] };
  readonly context?: unknown;
  readonly metadata?: JsonObject;
  readonly stream_mode?: ApiStreamMode | ApiStreamMode[];
  readonly stream_resumable?: boolean;
  /** Stream subgraphs' events too (a sub-agent's), each under its namespace (`values|tools:<task id>`). @default false */
  readonly stream_subgraphs?: boolean | null;
  readonly interrupt_before?: "*" | string[];
  readonly interrupt_after?: "*" | string[];
  readonly checkpoint?: { readonly checkpoint_id?: string; readonly checkpoint_ns?: string };
  readonly checkpoint_id?: string;
  readonly multitask_strategy?: MultitaskStrategy;
  readonly on_completion?: "delete" | "keep";
  readonly on_disconnect?: "cancel" | "continue";
  readonly after_seconds?: number;
  readonly if_not_exists?: "create" | "reject";
}

/** JSON Schema of RunRequest for the routes (unknown keys from newer SDKs are ignored, not rejected). */
export const runRequestSchema = {
  type: "object",
  required: ["assistant_id"],
  properties: {
    assistant_id: { type: "string", minLength: 1 },
    input: {},
    command: { type: ["object", "null"] },
    config: { type: ["object", "null"] },
    context: {},
    metadata: { type: ["object", "null"] },
    stream_mode: {
      anyOf: [
        { type: "string", enum: [...supportedStreamModes] },
        { type: "array", items: { type: "string", enum: [...supportedStreamModes] } },
      ],
    },
    stream_resumable: { type: ["boolean", "null"] },
    stream_subgraphs: { type: ["boolean", "null"] },
    interrupt_before: { anyOf: [{ const: "*" }, { type: "array", items: { type: "string" } }, { type: "null" }] },
    interrupt_after: { anyOf: [{ const: "*" }, { type: "array", items: { type: "string" } }, { type: "null" }] },
    checkpoint: { type: ["object", "null"] },
    checkpoint_id: { type: ["string", "null"] },
    multitask_strategy: { enum: ["reject", "interrupt", "rollback", "enqueue", null] },
    on_completion: { enum: ["delete", "keep", null] },
    on_disconnect: { enum: ["cancel", "continue", null] },
    after_seconds: { type: ["number", "null"], minimum: 0 },
    if_not_exists: { enum: ["create", "reject", null] },
  },
} as const;

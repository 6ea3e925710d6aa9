import { ThinktankError } from "@thinktank/core";
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
  /** When the graph writes its checkpoints (LangGraph's durability): every step as it goes (async), before the next (sync), or only at the end (exit). @default "async" */
  readonly durability?: "sync" | "async" | "exit" | null;
  /** The older form of durability: false is `exit`. @default true */
  readonly checkpoint_during?: boolean | null;
  /** LangGraph Platform fields this server does not implement: refused when given (checkRunRequest). */
  readonly webhook?: unknown;
  readonly feedback_keys?: unknown;
  readonly langsmith_tracer?: unknown;
  readonly strict_resume?: boolean | null;
}

/** Fields of a run request the SDK sends that this server does not implement: given a value, the request is refused (UNSUPPORTED_FIELD), never run without them. */
const unsupported: Record<string, string> = {
  webhook: "this server calls no webhooks: follow the run with join or a stream (GET /threads/{thread_id}/runs/{run_id}/stream)",
  feedback_keys: "LangSmith feedback is not offered by this server",
  langsmith_tracer: "runs are not traced to LangSmith by this server",
  strict_resume: "strict resume is not implemented: resume an interrupt with command.resume",
};

/**
 * Refuses a run request that asks for what this server does not do (a webhook, LangSmith tracing,
 * strict resume), with 422 UNSUPPORTED_FIELD and the field, rather than running without it. Empty
 * values (null, false, an empty list) ask for nothing and pass. A configurable key starting with
 * `__` (reserved for LangGraph and the server) is refused too (422 INVALID_STATE_INPUT).
 */
export function checkRunRequest(request: RunRequest): void {
  // Keys starting with __ are LangGraph's and this server's own (the run tracker, __pregel_*): a client's would reach the graph's internals.
  for (const key of Object.keys(request.config?.configurable ?? {})) {
    if (key.startsWith("__")) throw new ThinktankError("INVALID_STATE_INPUT", `config.configurable.${key}: keys starting with __ are reserved for the server and LangGraph`, { details: { field: `config.configurable.${key}` } });
  }
  const fields = request as unknown as Record<string, unknown>;
  for (const [field, reason] of Object.entries(unsupported)) {
    const value = fields[field];
    if (value === undefined || value === null || value === false || (Array.isArray(value) && value.length === 0)) continue;
    throw new ThinktankError("UNSUPPORTED_FIELD", `${field} is not supported here: ${reason}`, { details: { field } });
  }
}

/**
 * JSON Schema of RunRequest for the routes. Unknown keys from newer SDKs are ignored, not rejected;
 * the SDK's fields this server does not implement are refused when given (checkRunRequest).
 */
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
    durability: { enum: ["sync", "async", "exit", null] },
    checkpoint_during: { type: ["boolean", "null"] },
    strict_resume: { type: ["boolean", "null"] },
  },
} as const;

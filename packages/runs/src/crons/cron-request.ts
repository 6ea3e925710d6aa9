import { ThinktankError } from "@thinktank/core";
import type { JsonObject } from "../persistence/agent-records.js";
import { invalidCron } from "./cron-schedule.js";

/**
 * A cron's body as the SDK's `client.crons.create` / `createForThread` / `update` send it. The
 * route's JSON Schema checks the run fields' types; the cron's own fields are checked here (422
 * INVALID_CRON with `details.field`).
 */
export interface CronBody {
  readonly assistant_id?: string;
  readonly schedule?: string;
  readonly timezone?: string | null;
  readonly end_time?: string | null;
  readonly enabled?: boolean | null;
  readonly on_run_completed?: "delete" | "keep" | null;
  readonly metadata?: JsonObject | null;
  readonly webhook?: unknown;
  readonly checkpoint_during?: boolean | null;
  readonly durability?: string | null;
  readonly input?: unknown;
  readonly config?: unknown;
  readonly context?: unknown;
  readonly interrupt_before?: unknown;
  readonly interrupt_after?: unknown;
  readonly multitask_strategy?: string | null;
  readonly stream_mode?: unknown;
  readonly stream_subgraphs?: boolean | null;
  readonly stream_resumable?: boolean | null;
}

/** The run-request fields a cron keeps in its `payload` and each fire's run carries. */
export const payloadFields = ["input", "config", "context", "interrupt_before", "interrupt_after", "multitask_strategy", "stream_mode", "stream_subgraphs", "stream_resumable"] as const;
/** The fields of a new cron's body, and of a PATCH's (as the SDK sends them). */
export const createFields: ReadonlySet<string> = new Set([...payloadFields, "assistant_id", "schedule", "timezone", "end_time", "enabled", "on_run_completed", "metadata", "webhook", "checkpoint_during", "durability"]);
export const updateFields: ReadonlySet<string> = new Set([...createFields].filter((field) => field !== "assistant_id" && field !== "multitask_strategy" && field !== "checkpoint_during"));
/** Of those, the ones PATCH may change (the SDK's update sends no multitask_strategy). */
const updatableFields = payloadFields.filter((field) => field !== "multitask_strategy");

/**
 * Fields the SDK may send that change nothing here: refused when they ask for something else
 * (never accepted and ignored). `webhook`: this server sends no webhooks; `checkpoint_during` and
 * `durability`: runs here write a checkpoint at every step, as LangGraph's default "async" does.
 */
export function refuseUnsupported(body: CronBody, known: ReadonlySet<string>): void {
  for (const key of Object.keys(body)) if (!known.has(key)) throw invalidCron(key, "not a field of a cron here");
  if (body.webhook !== undefined && body.webhook !== null) {
    throw unsupported("webhook", "this server sends no webhooks: follow a cron's runs with runs.list on its thread (metadata.cron_id names the cron) or join them");
  }
  if (body.checkpoint_during === false) throw unsupported("checkpoint_during", "runs here write a checkpoint at every step; false cannot be honoured");
  if (body.durability !== undefined && body.durability !== null && body.durability !== "async") {
    throw unsupported("durability", `only "async" (checkpoints written as the run goes, the default) is offered here, not ${JSON.stringify(body.durability)}`);
  }
}

/** 422 UNSUPPORTED_FIELD: a LangGraph field this server does not implement, sent with a value it cannot honour. */
function unsupported(field: string, message: string): ThinktankError {
  return new ThinktankError("UNSUPPORTED_FIELD", `${field}: ${message}`, { details: { field } });
}

/** The most bytes (as JSON) a cron's run fields and its metadata may hold: each fire writes them again, for as long as it runs. */
export const maxPayloadBytes = 256 * 1024;
export const maxMetadataBytes = 64 * 1024;

/** INVALID_CRON when the payload or metadata a cron would keep is larger than the bounds above (the payload's largest field named). */
export function checkSizes(payload: JsonObject | undefined, metadata: unknown): void {
  if (metadata !== undefined && metadata !== null && Buffer.byteLength(JSON.stringify(metadata)) > maxMetadataBytes) throw invalidCron("metadata", `is larger than ${maxMetadataBytes / 1024} KB as JSON`);
  if (payload === undefined || Buffer.byteLength(JSON.stringify(payload)) <= maxPayloadBytes) return;
  const sizes = Object.entries(payload).map(([field, value]) => [field, Buffer.byteLength(JSON.stringify(value) ?? "")] as const);
  const [largest] = sizes.sort((one, two) => two[1] - one[1])[0] ?? ["input"];
  throw invalidCron(largest, `the run fields of a cron are larger than ${maxPayloadBytes / 1024} KB as JSON (each fire writes them again): keep large data elsewhere and refer to it`);
}

/** The payload of a new cron: the run fields present in the body. */
export function payloadOf(body: CronBody): JsonObject {
  const payload: Record<string, unknown> = {};
  for (const field of payloadFields) if (body[field] !== undefined && body[field] !== null) payload[field] = body[field];
  return payload as JsonObject;
}

/** A payload after a PATCH: fields present replace (null removes), the rest stay. */
export function patchPayload(payload: JsonObject, body: CronBody): JsonObject | undefined {
  let changed = false;
  const next: Record<string, unknown> = { ...payload };
  for (const field of updatableFields) {
    if (body[field] === undefined) continue;
    changed = true;
    if (body[field] === null) delete next[field];
    else next[field] = body[field];
  }
  return changed ? (next as JsonObject) : undefined;
}

/** An ISO 8601 end_time as its instant (epoch ms), or null for none; INVALID_CRON for anything else, or one already past. */
export function parseEndTime(value: string | null | undefined, now: Date): number | null {
  if (value === undefined || value === null) return null;
  const at = typeof value === "string" && /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(at)) throw invalidCron("end_time", `${JSON.stringify(value)} is not an ISO 8601 date and time (e.g. 2026-12-31T23:59:00Z)`);
  if (at <= now.getTime()) throw invalidCron("end_time", `${value} is already past: the cron would never fire`);
  return at;
}

/** The JSON Schema of the bodies: the run fields' types (from the run request's schema), and the cron's own. */
export function cronBodySchema(runProperties: Record<string, unknown>, required: readonly string[]): object {
  const run = Object.fromEntries(payloadFields.map((field) => [field, runProperties[field] ?? {}]));
  return {
    type: "object",
    required,
    properties: {
      ...run,
      assistant_id: { type: "string", minLength: 1 },
      schedule: { type: "string" },
      timezone: { type: ["string", "null"] },
      end_time: { type: ["string", "null"] },
      enabled: { type: ["boolean", "null"] },
      on_run_completed: { enum: ["delete", "keep", null] },
      metadata: { type: ["object", "null"] },
      webhook: {},
      checkpoint_during: { type: ["boolean", "null"] },
      durability: { type: ["string", "null"] },
    },
  };
}

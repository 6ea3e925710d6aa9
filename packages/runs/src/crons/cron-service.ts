import crypto from "node:crypto";
import { ThinktankError } from "@thinktank/core";
import type { JsonObject } from "../persistence/agent-records.js";
import { reaches, type Access } from "../owners/access.js";
import { checkThreadId } from "../threads/thread-id.js";
import type { ThreadService } from "../threads/thread-service.js";
import { cronRecordOf, type CronRecord, type CronRow, type CronSearch } from "./cron-record.js";
import { checkSizes, createFields, parseEndTime, patchPayload, payloadOf, refuseUnsupported, updateFields, type CronBody } from "./cron-request.js";
import { CronSchedule, invalidCron } from "./cron-schedule.js";
import type { CronChange, SqlCronStore } from "./sql-cron-store.js";

export interface CronServiceOptions {
  readonly store: SqlCronStore;
  readonly threads: ThreadService;
  /** The assistant a cron names, as its creator reaches it (ASSISTANT_NOT_FOUND otherwise): the same rule runs use. */
  readonly resolveAssistant: (assistantId: string, access: Access) => Promise<{ readonly assistant_id: string }>;
  readonly clock: () => Date;
  /** crons.min_interval_seconds. */
  readonly minIntervalSeconds: number;
  /** crons.max_per_owner. */
  readonly maxPerOwner: number;
  /** Told of every change, so the scheduler here re-plans (other replicas hear the database's notice). @default nothing */
  readonly changed?: () => void;
}

/** Fields `select` may ask for (the SDK's CronSelectField, `now` the server's time) and Thinktank's own. */
const selectable = new Set<string>(["cron_id", "assistant_id", "thread_id", "end_time", "schedule", "created_at", "updated_at", "user_id", "payload", "next_run_date", "metadata", "now", "timezone", "enabled", "on_run_completed", "paused_reason", "consecutive_failures", "last_run_id"]);

/**
 * Crons as the routes use them (README.md, "Crons"): create on a thread or thread-less, search,
 * count, update, delete, each as the caller (Access): a cron belongs to its creator, and another
 * owner's answers CRON_NOT_FOUND, as a missing one. Checks every field (422 INVALID_CRON with the
 * field), the minimum interval and the per-owner limit; the scheduler fires what is stored here.
 */
export class CronService {
  readonly #options: CronServiceOptions;

  constructor(options: CronServiceOptions) {
    this.#options = options;
  }

  /** A new cron; `threadId` undefined: a new thread each fire (`on_run_completed` delete or keep). */
  async create(threadId: string | undefined, body: CronBody, access: Access): Promise<CronRecord> {
    refuseUnsupported(body, createFields);
    const { clock, store } = this.#options;
    const now = clock();
    if (typeof body.schedule !== "string") throw invalidCron("schedule", "a cron expression is required (5 fields, or 6 with seconds first)");
    const schedule = CronSchedule.parse(body.schedule, body.timezone, this.#options.minIntervalSeconds);
    const end = parseEndTime(body.end_time, now);
    checkSizes(payloadOf(body), body.metadata);
    // What each fire writes to the thread must be what a run takes (422 INVALID_STATE_INPUT otherwise), now rather than at every fire.
    this.#options.threads.checkInput({ input: body.input });
    if (threadId !== undefined) {
      checkThreadId(threadId);
      if (body.on_run_completed !== undefined && body.on_run_completed !== null) throw invalidCron("on_run_completed", "only for a cron without a thread (POST /runs/crons): this cron's runs stay on its thread");
      await this.#options.threads.get(threadId, access);
    }
    if (typeof body.assistant_id !== "string" || body.assistant_id === "") throw invalidCron("assistant_id", "an assistant id (or graph id) is required");
    const { assistant_id: assistantId } = await this.#options.resolveAssistant(body.assistant_id, access);
    const enabled = body.enabled ?? true;
    const iso = now.toISOString();
    const row: CronRow = {
      cron_id: crypto.randomUUID(),
      owner_id: access.owner,
      assistant_id: assistantId,
      thread_id: threadId ?? null,
      schedule: body.schedule,
      timezone: body.timezone ?? null,
      end_time: end === null ? null : new Date(end).toISOString(),
      on_run_completed: threadId === undefined ? (body.on_run_completed ?? "delete") : null,
      payload: payloadOf(body),
      metadata: body.metadata ?? {},
      enabled: enabled ? 1 : 0,
      next_run_at: enabled ? nextTime(schedule, now, end) : null,
      paused_reason: null,
      failures: 0,
      last_run_id: null,
      created_at: iso,
      updated_at: iso,
      claim_replica: null,
      claim_at: null,
      claim_run_id: null,
    };
    if (!(await store.insert(row, this.#options.maxPerOwner))) {
      throw new ThinktankError("CRON_LIMIT_REACHED", `you have ${this.#options.maxPerOwner} crons already (crons.max_per_owner): delete one first`, { details: { limit: this.#options.maxPerOwner } });
    }
    this.#options.changed?.();
    return cronRecordOf(row);
  }

  /** A cron the caller reaches; CRON_NOT_FOUND otherwise. */
  async get(cronId: string, access: Access): Promise<CronRecord> {
    return cronRecordOf(await this.#reach(cronId, access));
  }

  /**
   * Changes a cron. A new schedule, time zone or end_time, or `enabled: true`, sets its next time
   * from now; `enabled: true` also clears a pause and its failures; `enabled: false` stops it.
   * `metadata` replaces the cron's; run fields replace the payload's (null removes one).
   */
  async update(cronId: string, body: CronBody, access: Access): Promise<CronRecord> {
    refuseUnsupported(body, updateFields);
    const row = await this.#reach(cronId, access);
    const now = this.#options.clock();
    const scheduleText = body.schedule ?? row.schedule;
    const timezone = body.timezone === undefined ? row.timezone : body.timezone;
    const timing = body.schedule !== undefined || body.timezone !== undefined || body.end_time !== undefined;
    const schedule = CronSchedule.parse(scheduleText, timezone, body.schedule !== undefined || body.timezone !== undefined ? this.#options.minIntervalSeconds : undefined);
    const end = body.end_time === undefined ? (row.end_time === null ? null : Date.parse(row.end_time)) : parseEndTime(body.end_time, now);
    if (row.thread_id !== null && body.on_run_completed !== undefined && body.on_run_completed !== null) throw invalidCron("on_run_completed", "only for a cron without a thread: this cron's runs stay on its thread");
    if (body.input !== undefined) this.#options.threads.checkInput({ input: body.input });
    const payload = patchPayload(row.payload, body);
    checkSizes(payload, body.metadata);
    const enable = body.enabled === true && row.enabled === 0;
    const disable = body.enabled === false;
    const change: CronChange = {
      updated_at: now.toISOString(),
      schedule: body.schedule,
      timezone: body.timezone === undefined ? undefined : body.timezone,
      end_time: body.end_time === undefined ? undefined : end === null ? null : new Date(end).toISOString(),
      on_run_completed: row.thread_id === null && body.on_run_completed ? body.on_run_completed : undefined,
      payload,
      metadata: body.metadata === undefined ? undefined : ((body.metadata ?? {}) as JsonObject),
      ...(disable ? { enabled: 0, next_run_at: null } : {}),
      ...(enable ? { enabled: 1, paused_reason: null, failures: 0, next_run_at: nextTime(schedule, now, end) } : {}),
      ...(!enable && !disable && timing && row.enabled === 1 ? { next_run_at: nextTime(schedule, now, end) } : {}),
    };
    const updated = await this.#options.store.update(cronId, change);
    if (!updated) throw notFound(cronId);
    this.#options.changed?.();
    return cronRecordOf(updated);
  }

  async delete(cronId: string, access: Access): Promise<void> {
    await this.#reach(cronId, access);
    await this.#options.store.delete(cronId);
    this.#options.changed?.();
  }

  /** The caller's crons (everyone's for an administrator asking with X-Thinktank-Scope: all), `select` picking fields. */
  async search(search: Omit<CronSearch, "owner"> & { select?: readonly string[] }, access: Access): Promise<Partial<CronRecord & { now: string }>[]> {
    for (const field of search.select ?? []) if (!selectable.has(field)) throw new ThinktankError("VALIDATION_FAILED", `select: ${JSON.stringify(field)} is not a field of a cron`, { details: { field: "select" } });
    const rows = await this.#options.store.search({ ...search, owner: access.everyone ? undefined : access.owner });
    const now = this.#options.clock().toISOString();
    return rows.map((row) => {
      const record = { ...cronRecordOf(row), now };
      if (!search.select || search.select.length === 0) return cronRecordOf(row);
      return Object.fromEntries(search.select.map((field) => [field, record[field as keyof typeof record]]));
    });
  }

  async count(filter: Omit<CronSearch, "owner" | "limit" | "offset" | "sort_by" | "sort_order">, access: Access): Promise<number> {
    return this.#options.store.count({ ...filter, owner: access.everyone ? undefined : access.owner });
  }

  async #reach(cronId: string, access: Access): Promise<CronRow> {
    const row = typeof cronId === "string" && cronId.length <= 100 ? await this.#options.store.get(cronId) : undefined;
    if (!row || !reaches(access, row.owner_id)) throw notFound(cronId);
    return row;
  }
}

function notFound(cronId: string): ThinktankError {
  return new ThinktankError("CRON_NOT_FOUND", `no cron ${JSON.stringify(cronId)}`);
}

/** The first time after `now`, or null when none comes before `end`. */
function nextTime(schedule: CronSchedule, now: Date, end: number | null): number | null {
  const next = schedule.next(now)?.getTime();
  return next === undefined || (end !== null && next > end) ? null : next;
}

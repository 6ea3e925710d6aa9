import { randomBytes } from "node:crypto";
import type { AuthMethod, Logger, Role } from "@thinktank/core";
import { looksLikeSecret, redactedMarker, redactSecrets } from "@thinktank/core";
import { columnList, placeholders, recordOf, rowParameters, type SqlDatabase } from "@thinktank/runs/sql";
import { auditTable } from "./identity-tables.js";
import type { AuditEntry, AuditLog, AuditQuery, AuditRecordInput } from "./identity-types.js";

export interface SqlAuditLogOptions {
  readonly database: SqlDatabase;
  readonly clock: () => Date;
  readonly logger?: Logger;
  /** Entries older than this go. @default 90 */
  readonly retentionDays: number;
  /** Past this many entries the oldest go. @default 100000 */
  readonly maxEntries: number;
}

interface AuditRow {
  id: string;
  at: string;
  actor_id: string | null;
  actor_name: string | null;
  actor_role: Role | null;
  actor_auth: AuthMethod | null;
  action: string;
  target: string | null;
  outcome: AuditEntry["outcome"];
  detail: Record<string, unknown> | null;
  source: string | null;
}

const defaultLimit = 50;
const maxLimit = 500;
/** Pruning runs after this many records, or this long after the last, whichever comes first. */
const pruneEvery = 200;
const pruneAfterMs = 10 * 60_000;
/** Longest text kept in one field (a hostile action name, target or detail string is cut, not refused). */
const maxText = 1000;

/**
 * The audit log in the threads database: one row per entry, never updated; secrets masked before
 * writing (secret-named keys, credentials in strings, values that look like keys); pruned by age
 * and count every so often (entries without an actor to a tenth of the count). Ids sort by time (hex milliseconds, a per-process counter, random), so
 * `list` pages newest first by id.
 */
export class SqlAuditLog implements AuditLog {
  readonly #options: SqlAuditLogOptions;
  readonly #suffix = randomBytes(3).toString("hex");
  #sequence = 0;
  #sincePrune = 0;
  #lastPrune = 0;

  constructor(options: SqlAuditLogOptions) {
    this.#options = options;
  }

  async record(entry: AuditRecordInput): Promise<void> {
    try {
      const now = this.#options.clock();
      const actor = entry.actor;
      const row: AuditRow = {
        id: this.#nextId(now),
        at: now.toISOString(),
        actor_id: actor?.id ?? null,
        actor_name: actor?.name ?? null,
        actor_role: actor?.role ?? null,
        actor_auth: actor?.auth ?? null,
        action: clip(String(entry.action)),
        target: entry.target === undefined ? null : masked(clip(String(entry.target))),
        outcome: entry.outcome,
        detail: entry.detail === undefined ? null : (maskDeep(redactSecrets(entry.detail), 0) as Record<string, unknown>),
        source: entry.source === undefined ? null : clip(String(entry.source)),
      };
      await this.#options.database.run(`INSERT INTO ${auditTable.name} (${columnList(auditTable)}) VALUES (${placeholders(auditTable)})`, rowParameters(auditTable, row));
      if (++this.#sincePrune >= pruneEvery || now.getTime() - this.#lastPrune > pruneAfterMs) await this.prune();
    } catch (error) {
      this.#options.logger?.error({ err: error, action: entry.action }, "audit: cannot record an entry");
    }
  }

  async list(query: AuditQuery): Promise<{ entries: AuditEntry[]; next?: string }> {
    const limit = Math.min(Math.max(Math.trunc(query.limit ?? defaultLimit), 1), maxLimit);
    const conditions: string[] = [];
    const parameters: unknown[] = [];
    const add = (condition: string, value: string | undefined) => {
      if (value === undefined || value === "") return;
      conditions.push(condition);
      parameters.push(value);
    };
    add("id < ?", query.before);
    add("actor_id = ?", query.actor);
    add("action = ?", query.action);
    add("target = ?", query.target);
    const { database } = this.#options;
    const where = conditions.length ? `WHERE ${conditions.join(" AND ")}` : "";
    const rows = await database.all<AuditRow>(
      `SELECT ${columnList(auditTable)} FROM ${auditTable.name} ${where} ORDER BY id ${database.dialect.bytewise} DESC LIMIT ?`,
      [...parameters, limit + 1],
    );
    const entries = rows.slice(0, limit).map((row) => entryOf(recordOf<AuditRow>(auditTable, database.dialect, row)));
    return rows.length > limit ? { entries, next: entries.at(-1)?.id } : { entries };
  }

  /** Deletes entries past the age and count bounds (also at open). Failures are logged. */
  async prune(): Promise<void> {
    const { database, clock, retentionDays, maxEntries } = this.#options;
    this.#sincePrune = 0;
    this.#lastPrune = clock().getTime();
    try {
      const cutoff = new Date(clock().getTime() - retentionDays * 86_400_000).toISOString();
      await database.run(`DELETE FROM ${auditTable.name} WHERE at < ?`, [cutoff]);
      // Entries without an actor (failed authentications, which anyone who reaches the port can cause) keep to a tenth of
      // the bound, so a flood of them never pushes out the record of who changed what.
      const [oldestAnonymous] = await database.all<{ id: string }>(`SELECT id FROM ${auditTable.name} WHERE actor_id IS NULL ORDER BY id ${database.dialect.bytewise} DESC LIMIT 1 OFFSET ?`, [anonymousBound(maxEntries) - 1]);
      if (oldestAnonymous) await database.run(`DELETE FROM ${auditTable.name} WHERE actor_id IS NULL AND id < ?`, [oldestAnonymous.id]);
      const [oldestKept] = await database.all<{ id: string }>(`SELECT id FROM ${auditTable.name} ORDER BY id ${database.dialect.bytewise} DESC LIMIT 1 OFFSET ?`, [maxEntries - 1]);
      if (oldestKept) await database.run(`DELETE FROM ${auditTable.name} WHERE id < ?`, [oldestKept.id]);
    } catch (error) {
      this.#options.logger?.warn({ err: error }, "audit: cannot prune old entries");
    }
  }

  #nextId(now: Date): string {
    this.#sequence = (this.#sequence + 1) % 0x10000;
    return `aud_${now.getTime().toString(16).padStart(12, "0")}${this.#sequence.toString(16).padStart(4, "0")}${this.#suffix}`;
  }
}

/** How many entries without an actor are kept: a tenth of max_entries (at least one). */
function anonymousBound(maxEntries: number): number {
  return Math.max(1, Math.floor(maxEntries / 10));
}

function entryOf(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    at: row.at,
    ...(row.actor_id !== null ? { actor: { id: row.actor_id, name: row.actor_name ?? row.actor_id, role: row.actor_role ?? "user", ...(row.actor_auth ? { auth: row.actor_auth } : {}) } } : {}),
    action: row.action,
    ...(row.target !== null ? { target: row.target } : {}),
    outcome: row.outcome,
    ...(row.detail !== null ? { detail: row.detail } : {}),
    ...(row.source !== null ? { source: row.source } : {}),
  };
}

function clip(text: string): string {
  return text.length > maxText ? `${text.slice(0, maxText)}…` : text;
}

function masked(text: string): string {
  return looksLikeSecret(text) ? redactedMarker : text;
}

/** After redactSecrets: any string value that looks like a key is masked too, whatever its name; long strings are cut. */
function maskDeep(value: unknown, depth: number): unknown {
  if (typeof value === "string") return masked(clip(value));
  if (value === null || typeof value !== "object") return value;
  if (depth > 8) return "[nested too deep]";
  if (Array.isArray(value)) return value.slice(0, 100).map((item) => maskDeep(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) copy[key] = maskDeep(child, depth + 1);
  return copy;
}

import type { Logger } from "@thinktank/core";
import { listenOnPostgres, type PostgresListener } from "@thinktank/runs/sql";
import { identityChannel } from "./identity-tables.js";
import type { IdentityStore } from "./identity-store.js";

export interface IdentityWatchOptions {
  /** How often the generation row is read: SQLite's only signal, Postgres's fallback. @default 250 (SQLite), 1000 (Postgres) */
  readonly pollMs?: number;
  readonly logger?: Logger;
}

/**
 * Keeps a store's snapshot current with changes other processes make:
 *
 *   SQLite:   every pollMs ─► read the generation row ─► changed? ─► reload
 *   Postgres: NOTIFY thinktank_identity ─► reload check (at once)
 *             every pollMs, and after the LISTEN connection is back ─► reload check (a missed notice costs ≤ pollMs)
 *
 * Timers are unref'd: a watch never keeps a process alive. A failed check is logged and tried again
 * at the next tick (the snapshot stays as it was meanwhile).
 */
export class IdentityWatch {
  readonly #store: IdentityStore;
  readonly #logger: Logger | undefined;
  readonly #timer: NodeJS.Timeout;
  #listener: PostgresListener | undefined;
  #checking = false;
  #failing = false;
  #stopped = false;

  private constructor(store: IdentityStore, pollMs: number, logger: Logger | undefined) {
    this.#store = store;
    this.#logger = logger;
    this.#timer = setInterval(() => void this.check(), pollMs);
    this.#timer.unref();
  }

  static async start(store: IdentityStore, options: IdentityWatchOptions = {}): Promise<IdentityWatch> {
    const url = store.connection.url;
    const watch = new IdentityWatch(store, options.pollMs ?? (url ? 1000 : 250), options.logger);
    if (url) {
      try {
        watch.#listener = await listenOnPostgres({
          url,
          channel: identityChannel,
          applicationName: "thinktank identity",
          onPayload: () => void watch.check(),
          onReconnect: () => void watch.check(),
          onError: (error, what) => options.logger?.warn({ err: error }, `identity: the LISTEN connection ${what === "dropped" ? "dropped; reopening" : "could not be reopened; trying again"}`),
        });
      } catch (error) {
        clearInterval(watch.#timer);
        throw error;
      }
    }
    return watch;
  }

  /** Reloads when the stored generation changed; one check at a time (a notice during one is covered by it or the next tick). */
  async check(): Promise<void> {
    if (this.#checking || this.#stopped) return;
    this.#checking = true;
    try {
      await this.#store.refreshIfChanged();
      if (this.#failing) this.#logger?.info("identity: reading users and keys works again");
      this.#failing = false;
    } catch (error) {
      if (!this.#failing && !this.#stopped) this.#logger?.warn({ err: error }, "identity: cannot read users and keys; keeping the last ones read");
      this.#failing = true;
    } finally {
      this.#checking = false;
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#listener?.close();
  }
}

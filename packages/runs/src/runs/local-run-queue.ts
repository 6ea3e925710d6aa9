import type { RunRecord, RunStatus } from "../persistence/agent-records.js";
import type { MetadataStore } from "../persistence/metadata-store.js";
import { InMemoryRunQueue, type Admitted, type RunQueue, type RunQueueHandlers, type RunTicket } from "./run-queue.js";

/**
 * The RunQueue of one process (SQLite, the embedded default): InMemoryRunQueue orders each
 * thread's runs (a promise chain per thread), records go to the MetadataStore. A run executes in the
 * process that admitted it, after the runs before it on its thread, then waits its after_seconds.
 */
export class LocalRunQueue implements RunQueue {
  readonly #order = new InMemoryRunQueue();
  readonly #metadata: MetadataStore;
  #handlers: RunQueueHandlers | undefined;

  constructor(metadata: MetadataStore) {
    this.#metadata = metadata;
  }

  start(handlers: RunQueueHandlers): void {
    this.#handlers = handlers;
  }

  async admit(run: RunRecord, ticket: RunTicket): Promise<Admitted> {
    const handlers = this.#handlers;
    if (!handlers) throw new Error("LocalRunQueue.admit before start");
    // Claims the thread (or refuses the run) before the record is written, so two requests at once cannot both find it free.
    const admission = await this.#order.admit(run.thread_id, run.run_id, ticket.strategy);
    try {
      await this.#metadata.createRun(run);
      await this.#metadata.updateThread(run.thread_id, { status: "busy" }, run.created_at);
    } catch (error) {
      this.#order.release(run.thread_id, run.run_id);
      throw error;
    }
    const turn = { run, request: ticket.request, temporary: ticket.temporary, delaySeconds: ticket.request.after_seconds ?? 0 };
    this.#order.schedule(run.thread_id, () => handlers.run(turn));
    return { ...admission, run };
  }

  /** In this process the manager aborts the run itself; here only whether it is in flight. */
  async cancel(_threadId: string, runId: string): Promise<boolean> {
    return this.#order.has(runId);
  }

  async end(run: RunRecord, status: RunStatus | "rollback", _error: unknown, now: string): Promise<void> {
    if (status === "rollback") await this.#metadata.deleteRun(run.run_id);
    else await this.#metadata.updateRun(run.run_id, { status }, now);
  }

  release(threadId: string, runId: string): void {
    this.#order.release(threadId, runId);
  }

  async inFlight(threadId: string): Promise<string[]> {
    return this.#order.inFlight(threadId);
  }

  held(threadId: string): string[] {
    return this.#order.inFlight(threadId);
  }

  /** Every run scheduled on the thread so far (a promise chain has no other end to wait for). */
  settled(threadId: string): Promise<void> {
    return this.#order.settled(threadId);
  }

  /** A run in flight here is always followed through its event log; nothing more to wait for. */
  async ended(): Promise<undefined> {
    return undefined;
  }

  settledAll(): Promise<void> {
    return this.#order.settledAll();
  }
}

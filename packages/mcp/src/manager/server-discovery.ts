import type { ManagedServer } from "./managed-server.js";
import { loadSessionModules } from "./session-modules.js";

export interface ServerDiscoveryOptions {
  /** The managed servers as they are now. */
  readonly servers: () => Iterable<ManagedServer>;
  /** Connect attempts running at once. */
  readonly concurrency: number;
  /** How long firstConnectsSettled() waits for a server's first attempt, counted from when it was queued (or from when the session's code had loaded, if later). */
  readonly graceMs: number;
  readonly now: () => number;
  /** Keeps a background promise so the manager can wait for it (settled, close). */
  readonly track: (work: Promise<unknown>) => void;
}

interface FirstAttempt {
  /** When its grace starts: when it was queued, or when the session's code had loaded if that was later. */
  startedAt: number;
  /** Settles once the session's code has loaded (startedAt is final then). */
  loaded: Promise<void>;
  readonly done: Promise<void>;
  readonly resolve: () => void;
}

/**
 * Connects servers off the request path: those whose tools are unknown, and those whose last
 * connect failed once their backoff has passed (ManagedServer.needsDiscovery), one attempt each,
 * `concurrency` at a time. A request never waits for a server that may not answer, except for a
 * short grace period on a server's very first attempt (firstConnectsSettled), so the first request
 * after start-up still sees a server that connects quickly.
 */
export class ServerDiscovery {
  private readonly queue: ManagedServer[] = [];
  /** Queued or connecting. */
  private readonly pending = new Set<ManagedServer>();
  private readonly firstAttempts = new Map<ManagedServer, FirstAttempt>();
  /** Servers whose first attempt was queued already (sessions are replaced by new objects when a config changes). */
  private readonly queuedBefore = new WeakSet<ManagedServer>();
  private active = 0;
  private closed = false;

  constructor(private readonly options: ServerDiscoveryOptions) {}

  /** Queues every server that needs discovery now and starts what the concurrency allows; never waits. Answers the names queued. */
  start(): string[] {
    if (this.closed) return [];
    const now = this.options.now();
    const queued: string[] = [];
    for (const server of this.options.servers()) {
      if (this.pending.has(server) || !server.needsDiscovery(now)) continue;
      this.pending.add(server);
      if (!this.queuedBefore.has(server)) {
        this.queuedBefore.add(server);
        let resolve = (): void => undefined;
        const done = new Promise<void>((settle) => (resolve = settle));
        // The grace is the server's time to connect: loading the session's code (the SDKs, on a first connect) does not use it up.
        const first = { startedAt: now, done, resolve } as FirstAttempt;
        first.loaded = loadSessionModules().then(
          () => void (first.startedAt = Math.max(first.startedAt, this.options.now())),
          () => undefined,
        );
        this.firstAttempts.set(server, first);
      }
      this.queue.push(server);
      queued.push(server.name);
    }
    this.pump();
    return queued;
  }

  /**
   * Resolves when every server still on its first attempt has finished it or used up its grace
   * period (counted from when it was queued, or from when the session's code had loaded if later); at once when there is none, or the grace is 0.
   */
  async firstConnectsSettled(): Promise<void> {
    if (this.options.graceMs === 0) return;
    await Promise.all([...this.firstAttempts.values()].map((first) => first.loaded));
    const now = this.options.now();
    const waits: Promise<void>[] = [];
    for (const first of this.firstAttempts.values()) {
      const remaining = first.startedAt + this.options.graceMs - now;
      if (remaining > 0) waits.push(within(first.done, remaining));
    }
    await Promise.all(waits);
  }

  /** Resolves when every server now on its first attempt has finished it, however long that takes. */
  async firstAttemptsDone(): Promise<void> {
    await Promise.all([...this.firstAttempts.values()].map((first) => first.done));
  }

  /** Drops the queue and releases anyone waiting; attempts under way end with their servers. */
  close(): void {
    this.closed = true;
    this.queue.length = 0;
    for (const first of this.firstAttempts.values()) first.resolve();
    this.firstAttempts.clear();
  }

  private pump(): void {
    while (!this.closed && this.active < this.options.concurrency && this.queue.length > 0) {
      const server = this.queue.shift() as ManagedServer;
      this.active += 1;
      const attempt = server.attemptConnect().finally(() => {
        this.active -= 1;
        this.pending.delete(server);
        this.firstAttempts.get(server)?.resolve();
        this.firstAttempts.delete(server);
        this.pump();
      });
      this.options.track(attempt);
    }
  }
}

/** Waits for `promise`, but no longer than `ms`. */
export async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

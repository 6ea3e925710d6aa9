export type SlotGrant = { readonly ok: true; release(): void } | { readonly ok: false; readonly reason: "busy" | "cancelled" };

/**
 * At most `maxConcurrent` programs run at once per executor; up to `maxQueued` more wait their turn
 * in arrival order, and past that a run is turned away at once (SANDBOX_BUSY), so a burst cannot
 * start hundreds of interpreters or pile up without bound. A waiting run whose signal is aborted
 * leaves the queue.
 */
export class RunSlots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly maxConcurrent: number,
    readonly maxQueued: number,
  ) {}

  get active(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length;
  }

  async acquire(signal?: AbortSignal): Promise<SlotGrant> {
    if (this.running < this.maxConcurrent) {
      this.running += 1;
      return this.grant();
    }
    if (this.waiting.length >= this.maxQueued) return { ok: false, reason: "busy" };
    return new Promise<SlotGrant>((resolve) => {
      const onAbort = (): void => {
        const index = this.waiting.indexOf(admit);
        if (index >= 0) this.waiting.splice(index, 1);
        resolve({ ok: false, reason: "cancelled" });
      };
      // A finishing run hands its slot straight over (running stays the same).
      const admit = (): void => {
        signal?.removeEventListener("abort", onAbort);
        resolve(this.grant());
      };
      if (signal?.aborted) return resolve({ ok: false, reason: "cancelled" });
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(admit);
    });
  }

  private grant(): SlotGrant {
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        const next = this.waiting.shift();
        if (next) next();
        else this.running -= 1;
      },
    };
  }
}

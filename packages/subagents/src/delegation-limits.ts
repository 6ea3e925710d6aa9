/** The limits of one run's delegations (config.subagents). */
export interface DelegationLimitsOptions {
  /** Sub-agents one caller (the lead, or a sub-agent that may delegate) runs at once. */
  readonly maxConcurrent: number;
  /** Delegations the whole run may start, at every depth together. */
  readonly maxPerRun: number;
}

/** Why a delegation may not start, or the slot it holds until `release`. */
export type DelegationAdmission = { readonly ok: true; readonly index: number } | { readonly ok: false; readonly reason: string };

interface Waiter {
  readonly grant: () => void;
}

/**
 * The `task` tool's limits for one run: `admit` counts a delegation against `maxPerRun` (shared by
 * every depth of the run, so sub-agents that may delegate cannot multiply it), `acquire` waits for
 * one of the caller's `maxConcurrent` slots, first come first served. A sub-agent that may delegate
 * gets its own slots (`forSubagent`): sharing its parent's would deadlock a parent that holds the
 * last slot while waiting for its child.
 */
export class DelegationLimits {
  readonly #options: DelegationLimitsOptions;
  readonly #budget: { started: number };
  readonly #waiting: Waiter[] = [];
  #running = 0;

  constructor(options: DelegationLimitsOptions, budget: { started: number } = { started: 0 }) {
    this.#options = options;
    this.#budget = budget;
  }

  /** Counts one more delegation of the run, or says why it may not start (`max_per_run` reached). */
  admit(): DelegationAdmission {
    if (this.#budget.started >= this.#options.maxPerRun) {
      return { ok: false, reason: `this run already started ${this.#budget.started} sub-agents, the most subagents.max_per_run (${this.#options.maxPerRun}) allows` };
    }
    this.#budget.started += 1;
    return { ok: true, index: this.#budget.started };
  }

  /** Sub-agents running now under this caller. */
  get running(): number {
    return this.#running;
  }

  /** Delegations waiting for a slot. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /**
   * Waits for a free slot (in call order) and answers the function that frees it (once; later
   * calls do nothing). An abort while waiting rejects with the signal's reason and takes no slot.
   */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (this.#running < this.#options.maxConcurrent) {
      this.#running += 1;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve(this.#releaser());
        },
      };
      const onAbort = () => {
        const index = this.#waiting.indexOf(waiter);
        if (index >= 0) this.#waiting.splice(index, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  /** The limits a sub-agent's own delegations use: the run's budget, slots of its own. */
  forSubagent(): DelegationLimits {
    return new DelegationLimits(this.#options, this.#budget);
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      // The slot passes straight to the next waiter, so a newcomer cannot take it in between.
      if (next) next.grant();
      else this.#running -= 1;
    };
  }
}

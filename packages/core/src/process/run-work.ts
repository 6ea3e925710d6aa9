/** The configurable key that carries a run's tracker to its tools (LangGraph hands the run's config to every tool call). */
const runWorkKey = "__thinktank_run_work";

/** The part of a LangChain RunnableConfig the tracker travels in (structural, so core needs no LangChain). */
export interface RunWorkConfig {
  readonly configurable?: Readonly<Record<string, unknown>>;
}

/**
 * Work a run's tools started that can outlive their tool call. When the run's signal aborts,
 * LangChain rejects the tool call at once while the tool's program is still being killed; the run
 * waits for this work before it counts as ended, so a cancel with wait returns after the kill and
 * the next run on the thread never overlaps it. It lives here because the tools that start such
 * work come from several libraries (sandbox programs, script tools) and the agent runs them.
 */
export class RunWork {
  readonly #pending = new Set<Promise<unknown>>();

  /** The configurable entry to pass to the graph. */
  configurable(): Record<string, unknown> {
    return { [runWorkKey]: this };
  }

  add(work: Promise<unknown>): void {
    const tracked: Promise<unknown> = work.then(
      () => this.#pending.delete(tracked),
      () => this.#pending.delete(tracked),
    );
    this.#pending.add(tracked);
  }

  /** Resolves once every tracked piece of work has ended (work added meanwhile included). */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }
}

/** Registers `work` with the run whose config a tool was called with (nothing outside a run); returns `work`. */
export function trackRunWork<T>(config: RunWorkConfig | undefined, work: Promise<T>): Promise<T> {
  const tracker: unknown = config?.configurable?.[runWorkKey];
  if (tracker instanceof RunWork) tracker.add(work);
  return work;
}

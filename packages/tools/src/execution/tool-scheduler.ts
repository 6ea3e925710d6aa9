interface Waiting {
  readonly parallel: boolean;
  readonly start: () => void;
}

/**
 * Orders the tool calls of one run: calls of parallel-capable tools run at the same time as each
 * other; a call of any other tool runs alone (it waits for the running calls to finish, and the
 * calls after it wait for it). First come, first served, so neither kind starves. The agent's
 * tools node starts every call of a model turn at once; going through one scheduler per run is
 * what makes the non-parallel ones take turns.
 */
export class ToolScheduler {
  private running = 0;
  private exclusive = false;
  private readonly queue: Waiting[] = [];

  /** Runs `task` when its turn comes; `parallel` is the tool's parallel_capable. */
  run<T>(parallel: boolean, task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        parallel,
        start: () => {
          task()
            .then(resolve, reject)
            .finally(() => {
              this.running--;
              if (!parallel) this.exclusive = false;
              this.pump();
            });
        },
      });
      this.pump();
    });
  }

  /** Calls running now. */
  get active(): number {
    return this.running;
  }

  private pump(): void {
    while (this.queue.length > 0 && !this.exclusive) {
      const next = this.queue[0] as Waiting;
      if (!next.parallel && this.running > 0) return;
      this.queue.shift();
      this.running++;
      if (!next.parallel) this.exclusive = true;
      next.start();
    }
  }
}

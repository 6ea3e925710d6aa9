/**
 * Resolves at the next wake of `waiters` (a follower's "something new"), or when `signal`
 * aborts; the wake is removed either way. Shared by the run event logs' follow loops.
 */
export function nextWake(waiters: Set<() => void>, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    const wake = (): void => {
      waiters.delete(wake);
      signal?.removeEventListener("abort", wake);
      resolve();
    };
    waiters.add(wake);
    signal?.addEventListener("abort", wake, { once: true });
  });
}

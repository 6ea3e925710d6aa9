/**
 * An AbortSignal that fires on SIGINT or SIGTERM, or when the parent process that started this
 * one with an IPC channel (`thinktank start`) disconnects, so a child never outlives it.
 * `dispose` removes the listeners again.
 */
export function stopSignal(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  const watchesParent = typeof process.send === "function";
  if (watchesParent) process.on("disconnect", stop);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      if (watchesParent) {
        process.off("disconnect", stop);
        if (process.connected) process.disconnect();
      }
    },
  };
}

// Loads one thing for a page: its value, the error it failed with (an ApiError keeps the code), and
// a reload. A newer load or an unmount aborts the one before, so an old answer never overwrites a new one.
import { useCallback, useEffect, useRef, useState } from "react";

export interface Resource<T> {
  readonly data: T | undefined;
  readonly error: unknown;
  readonly loading: boolean;
  /** Loads again (after a change the page made, or on the reader's request). */
  readonly reload: () => void;
}

/** Calls `load` on mount and whenever `key` changes; `load` gets a signal aborted when it is superseded. */
export function useResource<T>(load: (signal: AbortSignal) => Promise<T>, key: string = ""): Resource<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(true);
  const [generation, setGeneration] = useState(0);
  const loader = useRef(load);
  loader.current = load;
  useEffect(() => {
    const controller = new AbortController();
    setLoading(true);
    loader.current(controller.signal).then(
      (value) => {
        if (controller.signal.aborted) return;
        setData(value);
        setError(undefined);
        setLoading(false);
      },
      (failure: unknown) => {
        if (controller.signal.aborted) return;
        setError(failure);
        setLoading(false);
      },
    );
    return () => controller.abort();
  }, [key, generation]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { data, error, loading, reload };
}

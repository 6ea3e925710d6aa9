// A page loaded when it is first opened (its own chunk), so the first page ships only what it needs.
import { lazy, Suspense, type ComponentType } from "react";
import { ErrorNote } from "../components/error-note.js";
import type { PageProps } from "./page-list.js";

/** A page whose module is imported on first render; a chunk that fails to load (a newer build deployed) says to reload. */
export function lazyPage(load: () => Promise<ComponentType<PageProps>>): ComponentType<PageProps> {
  const Lazy = lazy(async () => {
    try {
      return { default: await load() };
    } catch {
      const Failed = () => <ErrorNote error={new Error("This page could not be loaded (the console may have been updated): reload the page.")} />;
      return { default: Failed };
    }
  });
  return function LazyPage(props: PageProps) {
    return (
      <Suspense fallback={<p aria-busy="true">Loading…</p>}>
        <Lazy {...props} />
      </Suspense>
    );
  };
}

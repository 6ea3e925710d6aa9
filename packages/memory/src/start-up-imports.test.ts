import { loadedModules } from "@thinktank/testing";
import { describe, expect, it } from "vitest";

// LangChain (with langsmith and zod) was most of the start-up of the processes that import this
// package for its files and routes (the gateway, `thinktank memory`); only an auto-memory pass needs it.
describe("importing @thinktank/memory", () => {
  it("loads no LangChain", async () => {
    const loaded = await loadedModules("@thinktank/memory");
    expect(loaded.some((url) => url.includes("/packages/memory/"))).toBe(true);
    expect(loaded.filter((url) => /\/node_modules\/(@langchain\/|langsmith\/)/.test(url))).toEqual([]);
  });
});

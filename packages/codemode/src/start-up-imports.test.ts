import { loadedModules } from "@thinktank/testing";
import { describe, expect, it } from "vitest";

// Every agent server imports code mode; the /mcp endpoint's server SDKs and esbuild load with the
// endpoint's first request and the first program instead (LazyCodeModeMcpEndpoint, bundleProgram).
describe("importing @thinktank/codemode", () => {
  it("loads no MCP SDK and no esbuild", async () => {
    const loaded = await loadedModules("@thinktank/codemode");
    expect(loaded.some((url) => url.includes("/packages/codemode/"))).toBe(true);
    expect(loaded.filter((url) => /\/node_modules\/(@modelcontextprotocol\/|esbuild\/|@hono\/)/.test(url))).toEqual([]);
  });
});

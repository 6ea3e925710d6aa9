import { loadedModules } from "@thinktank/testing";
import { describe, expect, it } from "vitest";

// Both MCP SDKs (their schemas above all) were about a third of the start-up of every process that
// imports this package: the gateway, the agent server, `thinktank skills list`. They load with the
// first session (ManagedServer), sign-in or revocation (oauth/sdk-auth.ts) instead.
describe("importing @thinktank/mcp", () => {
  it("loads neither MCP SDK, nor zod", async () => {
    const loaded = await loadedModules("@thinktank/mcp");
    expect(loaded.some((url) => url.includes("/packages/mcp/"))).toBe(true);
    expect(loaded.filter((url) => /\/node_modules\/(@modelcontextprotocol\/|zod\/)/.test(url))).toEqual([]);
  });
});

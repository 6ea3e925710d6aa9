import type { CatalogTool } from "@thinktank/mcp";
import { makeTempDir } from "@thinktank/testing";
import { afterAll, describe, expect, it } from "vitest";
import type { ToolInvoker } from "../invoker/tool-invoker.js";
import { CodeModeCatalog } from "./code-mode-catalog.js";

/** A tool source naming one server with one tool (the seam code mode merges its sources through). */
function source(server: string, tool: string): ToolInvoker {
  const tools: CatalogTool[] = [{ name: tool, description: tool, inputSchema: { type: "object" } }];
  return {
    serverNames: () => [server],
    describe: (name) => ({ name, transport: "stdio", status: "connected", toolCount: 1 }) as never,
    knownTools: () => tools,
    listTools: async () => tools,
    callTool: async () => ({ content: [] }),
  };
}

const temp = makeTempDir("tt-catalog-");
afterAll(() => temp.cleanup());

describe("CodeModeCatalog", () => {
  it("gives a server name two sources claim to the first, and says so in the log once", () => {
    const warnings: { details: Record<string, unknown>; message: string }[] = [];
    const logger = { debug() {}, info() {}, warn: (details: Record<string, unknown>, message: string) => warnings.push({ details, message }), error() {} };
    const mcp = source("tools", "from_mcp");
    const registered = source("tools", "from_registry");
    const catalog = new CodeModeCatalog({ invokers: [mcp, registered], codeApiDir: temp.dir, defaultLimit: 5, maxLimit: 10, generate: false, logger });
    catalog.refresh();
    catalog.refresh();
    expect(catalog.invokerFor("tools")).toBe(mcp);
    expect(catalog.catalog().flatMap((server) => server.tools.map((tool) => tool.name))).toEqual(["from_mcp"]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ details: { server: "tools" } });
    expect(warnings[0]?.message).toMatch(/rename the MCP server/);
  });
});

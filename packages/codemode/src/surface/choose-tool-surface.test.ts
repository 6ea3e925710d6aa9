import { referenceStdioEntry } from "@thinktank/mcp/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeModeFixture, type CodeModeFixture } from "../test-support/code-mode-fixture.js";
import { chooseToolSurface } from "./choose-tool-surface.js";

describe("chooseToolSurface", () => {
  let fixture: CodeModeFixture;
  const choose = (mode: "direct" | "code" | "auto", autoThresholdTokens = 4000) =>
    chooseToolSurface({ codeMode: fixture.codeMode, manager: fixture.manager, mode, autoThresholdTokens, place: { threadId: "surface" } });

  beforeAll(async () => {
    fixture = codeModeFixture({ servers: () => ({ everything: referenceStdioEntry("server-everything"), "team:memory": referenceStdioEntry("server-memory", [], { MEMORY_FILE_PATH: "/dev/null" }) }) });
    await fixture.codeMode.prepare();
  }, 120_000);
  afterAll(async () => fixture?.cleanup());

  it("direct mode: every MCP tool as a LangChain tool under its model-facing name, calling through the manager", async () => {
    const surface = await choose("direct");
    expect(surface.mode).toBe("direct");
    expect(surface.sections).toEqual([]);
    const names = surface.tools.map((tool) => tool.name);
    expect(names).toContain("everything__get-sum");
    expect(names).toContain("team_memory__read_graph");
    expect(names.every((name) => /^[a-zA-Z0-9_-]{1,64}$/.test(name))).toBe(true);
    expect(names).toHaveLength(surface.description.toolCount);
    const sum = surface.tools.find((tool) => tool.name === "everything__get-sum");
    expect(JSON.stringify(await sum?.invoke({ a: 1, b: 2 }))).toContain("3");
  });

  it("code mode: list_servers, search_tools and execute_code with the code-execution section", async () => {
    const surface = await choose("code");
    expect(surface.tools.map((tool) => tool.name)).toEqual(["list_servers", "search_tools", "execute_code"]);
    expect(surface.sections[0]?.text).toMatch(/^<code_execution>[\s\S]*search_tools[\s\S]*<\/code_execution>$/);
    const [listServers, searchTools, executeCode] = surface.tools;
    expect(JSON.parse(String(await listServers?.invoke({})))).toMatchObject({ servers: [{ name: "everything" }, { name: "team:memory" }] });
    expect(JSON.parse(String(await searchTools?.invoke({ query: "read the whole knowledge graph", limit: 1 })))).toEqual({ tools: [expect.objectContaining({ server: "team:memory", name: "read_graph" })] });
    expect(JSON.parse(String(await searchTools?.invoke({ query: "x", server: "nope" })))).toMatchObject({ error: { code: "MCP_SERVER_NOT_FOUND" } });
    const result = JSON.parse(String(await executeCode?.invoke({ code: 'import { getSum } from "servers/everything"; console.log(JSON.stringify(await getSum({ a: 40, b: 2 })));' }))) as { stdout: string; tools_called: unknown[] };
    expect(result.stdout).toContain("42");
    expect(result.tools_called).toEqual([expect.objectContaining({ tool: "everything.get-sum", status: "ok" })]);
  }, 60_000);

  it("auto: direct below the threshold, code above it", async () => {
    const cost = (await choose("direct")).description.costs.direct;
    expect((await choose("auto", cost)).mode).toBe("direct");
    const above = await choose("auto", cost - 1);
    expect(above.mode).toBe("code");
    expect(above.reason).toContain(`cost ${cost} tokens, more than auto_threshold_tokens (${cost - 1})`);
    expect(above.description.costs.code).toBeLessThan(1000);
  });
});

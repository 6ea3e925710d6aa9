// A place's servers (an assistant's mcp_servers): list_servers and search_tools show only those, a
// search naming another is MCP_SERVER_NOT_FOUND, and a program's call to another is refused by the
// bridge, while calls to an allowed server work.
import { referenceStdioEntry, testServerEntry } from "@thinktank/mcp/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeModeFixture, type CodeModeFixture } from "./test-support/code-mode-fixture.js";

describe("a place restricted to some servers", () => {
  let fixture: CodeModeFixture;
  const onlyTest = (server: string) => server === "test";

  beforeAll(async () => {
    fixture = codeModeFixture({ servers: () => ({ test: testServerEntry(), everything: referenceStdioEntry("server-everything") }) });
    await fixture.codeMode.prepare();
  }, 120_000);
  afterAll(async () => fixture?.cleanup());

  it("lists and searches only the allowed servers", async () => {
    expect(fixture.codeMode.listServers().map((server) => server.name).sort()).toEqual(["everything", "test"]);
    expect(fixture.codeMode.listServers(undefined, onlyTest).map((server) => server.name)).toEqual(["test"]);
    const open = await fixture.codeMode.searchTools({ query: "echo a message", limit: 20 });
    expect(open.some((hit) => hit.server === "everything")).toBe(true);
    const narrow = await fixture.codeMode.searchTools({ query: "echo a message", limit: 20 }, undefined, onlyTest);
    expect(narrow.length).toBeGreaterThan(0);
    expect(narrow.every((hit) => hit.server === "test")).toBe(true);
    await expect(fixture.codeMode.searchTools({ query: "echo", server: "everything" }, undefined, onlyTest)).rejects.toMatchObject({ code: "MCP_SERVER_NOT_FOUND" });
  });

  it("refuses a program's call to a server the place may not reach", async () => {
    const code = `
import { echo as everythingEcho } from "servers/everything";
import { echo } from "servers/test";
console.log(JSON.stringify(await echo({ text: "allowed" })));
try {
  await everythingEcho({ message: "not allowed" });
  console.log("reached everything");
} catch (error) {
  console.log("refused", error.code);
}
`;
    const result = await fixture.codeMode.executeCode({ code }, { threadId: "narrow", servers: onlyTest });
    expect(result.error, result.stderr).toBeUndefined();
    expect(result.stdout).toContain('{"echoed":"allowed"}');
    expect(result.stdout).toMatch(/^refused \S+/m);
    expect(result.stdout).not.toContain("reached everything");
    expect(result.tools_called.map((call) => [call.tool, call.status])).toEqual([
      ["test.echo", "ok"],
      ["everything.echo", "error"],
    ]);
  });
});

// Code mode over servers of both MCP eras: a 2026-07-28 server's tools are called from a program
// like any other, and list_servers names a server of neither era with PROTOCOL_UNSUPPORTED.
import { eraStdioEntry } from "@thinktank/mcp/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeModeFixture, type CodeModeFixture } from "./test-support/code-mode-fixture.js";

describe("code mode over both MCP eras", () => {
  let fixture: CodeModeFixture;

  beforeAll(async () => {
    fixture = codeModeFixture({ servers: () => ({ modern: eraStdioEntry({ sdk: "v2", era: "modern" }), future: eraStdioEntry({ sdk: "v1", era: "neither" }) }), mcp: { retries: 0 } });
    await fixture.manager.connectAll({ once: true });
  }, 120_000);
  afterAll(async () => fixture?.cleanup());

  it("list_servers shows the server of neither era as unavailable with PROTOCOL_UNSUPPORTED and the versions tried", () => {
    const servers = fixture.codeMode.listServers();
    expect(servers.find((server) => server.name === "future")).toMatchObject({
      status: "unavailable",
      code: "PROTOCOL_UNSUPPORTED",
      versions_tried: ["2026-07-28 (server/discover)", "2025-11-25 (initialize)"],
      reason: expect.stringMatching(/^PROTOCOL_UNSUPPORTED: /),
    });
    expect(servers.find((server) => server.name === "modern")).toMatchObject({ status: "connected", tool_count: 2 });
  });

  it("a program calls a 2026-07-28 server's tool through the bridge", async () => {
    const result = await fixture.codeMode.executeCode({ code: 'import { echo } from "servers/modern"; console.log(JSON.stringify(await echo({ text: "hi" })));' }, { threadId: "eras" });
    expect(result.exit_code, result.stderr).toBe(0);
    expect(result.stdout).toContain("modern:hi");
  }, 120_000);

  it("a program whose call needs input gets MCP_INPUT_REQUIRED (no one to ask from inside a program)", async () => {
    const result = await fixture.codeMode.executeCode(
      { code: 'import { confirm } from "servers/modern"; try { await confirm({ action: "deploy" }); } catch (error) { console.log(error.code, error.message); }' },
      { threadId: "eras" },
    );
    expect(result.stdout).toContain("MCP_INPUT_REQUIRED");
    expect(result.stdout).toContain("Really deploy?");
  }, 120_000);
});

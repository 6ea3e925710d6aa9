// The /mcp endpoint in both protocol eras, driven by the official v2 SDK client
// (@modelcontextprotocol/client): pinned to 2026-07-28, in auto mode, and in its default (2025) mode.
import { Client, StreamableHTTPClientTransport, type VersionNegotiationMode } from "@modelcontextprotocol/client";
import { testServerEntry } from "@thinktank/mcp/testing";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodeModeRuntime } from "../runtime/code-mode-runtime.js";
import { configFolder, type ConfigFolder } from "../test-support/runtime-fixture.js";

const apiKey = "test-key-eras";

describe("the /mcp endpoint serves both MCP eras", () => {
  let folder: ConfigFolder;
  let app: FastifyInstance;
  let url: URL;
  const clients: Client[] = [];

  const connect = async (mode: VersionNegotiationMode | undefined, headers: Record<string, string> = { "x-api-key": apiKey }): Promise<Client> => {
    const client = new Client({ name: "eras-test", version: "1.0.0" }, mode ? { versionNegotiation: { mode } } : {});
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    clients.push(client);
    return client;
  };
  const textOf = (result: { content: unknown }): string => ((result.content as { text?: string }[])[0]?.text ?? "");

  beforeAll(async () => {
    folder = configFolder({ test: testServerEntry() });
    const runtime = new CodeModeRuntime(folder.load({ THINKTANK_API_KEY: apiKey }));
    app = Fastify({ logger: false });
    runtime.mountMcpEndpoint(app);
    await app.listen({ host: "127.0.0.1", port: 0 });
    const address = app.server.address();
    url = new URL(`http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/mcp`);
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await app?.close();
    folder?.cleanup();
  });

  for (const [label, mode, era, version] of [
    ["pinned to 2026-07-28", { pin: "2026-07-28" }, "modern", "2026-07-28"],
    ["in auto mode", "auto", "modern", "2026-07-28"],
    ["in its default mode (2025)", undefined, "legacy", "2025-11-25"],
  ] as const) {
    it(`a v2 client ${label} connects in the ${era} era, lists the three tools and runs a program`, async () => {
      const client = await connect(mode);
      expect(client.getProtocolEra()).toBe(era);
      expect(client.getNegotiatedProtocolVersion()).toBe(version);
      const listed = await client.listTools();
      expect(listed.tools.map((tool) => tool.name)).toEqual(["list_servers", "search_tools", "execute_code"]);
      if (era === "modern") expect(listed.ttlMs).toBe(60_000);
      const servers = await client.callTool({ name: "list_servers", arguments: {} });
      expect((servers.structuredContent as { servers: { name: string }[] }).servers.map((server) => server.name)).toEqual(["test"]);
      const run = await client.callTool({ name: "execute_code", arguments: { code: 'import { echo } from "servers/test"; console.log(JSON.stringify(await echo({ text: "hi" })));' } });
      expect(run.isError, textOf(run)).toBe(false);
      expect(textOf(run)).toContain("hi");
    }, 120_000);
  }

  it("a 2026-07-28 request needs the API key like any other", async () => {
    await expect(connect({ pin: "2026-07-28" }, {})).rejects.toThrow();
    await expect(connect({ pin: "2026-07-28" }, { "x-api-key": "wrong" })).rejects.toThrow();
  });

  it("a caller's 2026-07-28 programs share one workspace across requests (the era has no session)", async () => {
    const client = await connect({ pin: "2026-07-28" });
    const write = await client.callTool({ name: "execute_code", arguments: { code: 'import fs from "node:fs"; fs.writeFileSync("kept.txt", "a"); console.log("ok");' } });
    expect(write.isError, textOf(write)).toBe(false);
    const other = await connect({ pin: "2026-07-28" });
    const read = await other.callTool({ name: "execute_code", arguments: { code: 'import fs from "node:fs"; console.log(fs.existsSync("kept.txt"));' } });
    expect(textOf(read)).toContain("true");
  }, 120_000);
});

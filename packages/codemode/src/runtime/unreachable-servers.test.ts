// A request's tool surface never waits for MCP servers that do not answer: direct mode offers the
// servers whose tools are known, list_servers says why the others are missing, and a server that
// comes up later appears on a later request once its backoff has passed.
import { startEverythingOverHttp, startSilentTcpServer, testServerEntry, waitFor, type RunningHttpServer, type SilentTcpServer } from "@thinktank/mcp/testing";
import { freePort } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chooseToolSurface } from "../surface/choose-tool-surface.js";
import { configFolder, type ConfigFolder } from "../test-support/runtime-fixture.js";
import { CodeModeRuntime } from "./code-mode-runtime.js";

describe("a request with unreachable MCP servers", { timeout: 120_000 }, () => {
  let folder: ConfigFolder;
  let runtime: CodeModeRuntime;
  let silent: SilentTcpServer;
  let revived: RunningHttpServer | undefined;
  const deadPorts: number[] = [];

  beforeAll(async () => {
    silent = await startSilentTcpServer();
    for (let index = 0; index < 3; index++) deadPorts.push(await freePort());
    folder = configFolder(
      {
        working: testServerEntry(),
        ...Object.fromEntries(deadPorts.map((port, index) => [`dead-${index}`, { type: "http", url: `http://127.0.0.1:${port}/mcp` }])),
        hanging: { type: "http", url: silent.url },
      },
    );
    const config = folder.load();
    // A short connect timeout and backoff so the test runs quickly; a generous grace so the first request sees the stdio server under load.
    const mcp = { ...config.mcp, connect_timeout_ms: 4000, discovery_retry_base_ms: 5000, discovery_retry_max_ms: 5000, first_connect_grace_ms: 20_000 };
    runtime = new CodeModeRuntime({ ...config, mcp, code_execution: { ...config.code_execution, mode: "direct" } });
  });

  afterAll(async () => {
    await runtime?.close();
    await revived?.kill();
    await silent?.close();
    folder?.cleanup();
  });

  const toolNames = (choice: { tools: readonly { name: string }[] }): string[] => choice.tools.map((tool) => tool.name);

  it("prepares direct mode at once with the working server's tools; list_servers shows the others unavailable with reasons", async () => {
    // The first request after start-up may wait for new servers' first connects, within the grace only.
    const first = await runtime.surface({ threadId: "t" });
    expect(first.mode).toBe("direct");
    expect(toolNames(first)).toContain("working__echo");

    const started = performance.now();
    const second = await runtime.surface({ threadId: "t" });
    const elapsed = performance.now() - started;
    expect(elapsed).toBeLessThan(3000); // waiting for the hanging server would take its 4 s connect timeout
    expect(toolNames(second).filter((name) => !name.startsWith("working__"))).toEqual([]);
    expect(toolNames(second)).toHaveLength(7);
    expect(second.unavailable.map((entry) => entry.server)).toEqual(["dead-0", "dead-1", "dead-2", "hanging"]);

    const servers = Object.fromEntries(runtime.codeMode.listServers().map((server) => [server.name, server]));
    expect(servers.working).toMatchObject({ status: "connected", tool_count: 7 });
    // Each missing server is listed with the reason of its last failure. On a loaded machine the first request can
    // outlast the backoff, so a server may already be trying again ("connecting"), still with that reason.
    for (const name of ["dead-0", "dead-1", "dead-2", "hanging"]) {
      expect(servers[name], name).toMatchObject({ status: expect.stringMatching(/^(unavailable|connecting)$/), transport: "http", reason: expect.stringMatching(/\S/) });
    }
    expect(servers.hanging?.reason).toContain("4000 ms");
    expect(second.unavailable.find((entry) => entry.server === "hanging")?.reason).toContain(servers.hanging?.reason);

    // Auto mode measures only the known tool lists, without waiting either.
    const autoStarted = performance.now();
    const auto = await chooseToolSurface({ codeMode: runtime.codeMode, manager: runtime.manager, mode: "auto", autoThresholdTokens: 1_000_000, place: { threadId: "t" } });
    expect(performance.now() - autoStarted).toBeLessThan(3000);
    expect(auto).toMatchObject({ mode: "direct", description: { toolCount: 7 } });
  });

  it("offers a server that was dead on a later request, once it answers and its backoff has passed", async () => {
    const port = deadPorts[0] as number;
    revived = await startEverythingOverHttp("streamableHttp", port);
    const appeared = await waitFor(
      "dead-0's tools on a request",
      async () => {
        const started = performance.now();
        const choice = await runtime.surface({ threadId: "t" });
        expect(performance.now() - started).toBeLessThan(3000); // no request waits for the hanging server's 4 s
        return toolNames(choice).some((name) => name.startsWith("dead-0__")) ? choice : undefined;
      },
      60_000,
    );
    expect(toolNames(appeared)).toContain("dead-0__echo");
    expect(appeared.unavailable.map((entry) => entry.server)).toEqual(["dead-1", "dead-2", "hanging"]);
    expect(runtime.codeMode.listServers().find((server) => server.name === "dead-0")).toMatchObject({ status: "connected" });
  });
});

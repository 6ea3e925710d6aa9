import fs from "node:fs";
import path from "node:path";
import { isThinktankError, type ThinktankError } from "@thinktank/core";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readCachedToolList } from "../catalog/cached-tool-list.js";
import type { McpServerEntry } from "../servers/server-entry.js";
import { inputResponsesFromAnswer, questionForInputRequests } from "./input-required.js";
import type { McpManagerOptions } from "./manager-types.js";
import { McpManager } from "./mcp-manager.js";
import { eraStdioEntry, startEraServerOverHttp, type EraServerKind, type RunningEraServer } from "./testing/era-test-server.js";
import { waitFor } from "./testing/wait-for.js";

// Real servers of each era, made with the real SDKs (v1 @modelcontextprotocol/sdk, v2
// @modelcontextprotocol/server), over stdio and streamable HTTP, against the manager.

let temp: { dir: string; cleanup: () => void };
let managers: McpManager[] = [];
let servers: RunningEraServer[] = [];
beforeEach(() => {
  temp = makeTempDir("tt-mcp-eras-");
});
afterEach(async () => {
  await Promise.all(managers.map((manager) => manager.close()));
  await Promise.all(servers.map((server) => server.close()));
  managers = [];
  servers = [];
  temp.cleanup();
});

const catalogDir = (): string => path.join(temp.dir, "catalog");
const textOf = (result: { content: unknown }): string => ((result.content as { text?: string }[])[0]?.text ?? "");

function makeManager(entries: Record<string, McpServerEntry>, options: Partial<McpManagerOptions> = {}): McpManager {
  const manager = new McpManager(
    { mcp: { connect_timeout_ms: 20_000, call_timeout_ms: 20_000, retries: 0, retry_base_delay_ms: 10, catalog_dir: catalogDir() }, env: { PATH: process.env.PATH, HOME: process.env.HOME }, ...options },
    entries,
  );
  managers.push(manager);
  return manager;
}

async function httpEntry(kind: EraServerKind, options: Parameters<typeof startEraServerOverHttp>[1] = {}): Promise<McpServerEntry> {
  const server = await startEraServerOverHttp(kind, options);
  servers.push(server);
  return { type: "http", url: server.url };
}

async function rejection(promise: Promise<unknown>): Promise<ThinktankError> {
  try {
    await promise;
  } catch (error) {
    if (isThinktankError(error)) return error;
    throw error;
  }
  throw new Error("expected a rejection");
}

const kinds: { readonly label: string; readonly kind: EraServerKind; readonly version: string; readonly era: string }[] = [
  { label: "a v1 server (2025 era only)", kind: { sdk: "v1" }, version: "2025-11-25", era: "legacy" },
  { label: "a v2 server of both eras", kind: { sdk: "v2", era: "both" }, version: "2026-07-28", era: "modern" },
  { label: "a v2 server of 2026-07-28 only", kind: { sdk: "v2", era: "modern" }, version: "2026-07-28", era: "modern" },
];

describe("the manager speaks both protocol eras", () => {
  for (const transport of ["stdio", "http"] as const) {
    for (const { label, kind, version, era } of kinds) {
      it(`${label} over ${transport}: connects in its era, lists and calls, and remembers what it speaks`, async () => {
        const entry = transport === "stdio" ? eraStdioEntry(kind) : await httpEntry(kind);
        const manager = makeManager({ s: entry });
        const tools = await manager.listTools("s");
        expect(tools.map((tool) => tool.name)).toContain("echo");
        const status = manager.statusOf("s");
        expect(status.state).toBe("connected");
        expect(status.protocolVersion).toBe(version);
        expect(textOf(await manager.callTool("s", "echo", { text: "hi" }))).toBe(`${era}:hi`);
        // Recorded with the cached list, so the next start skips the probe (or adopts the discover result).
        expect(readCachedToolList(catalogDir(), "s")?.verdict?.era).toBe(era);

        // A fresh manager on the same catalog starts from the recorded verdict and still connects.
        await manager.close();
        const again = makeManager({ s: entry });
        expect(textOf(await again.callTool("s", "echo", { text: "again" }))).toBe(`${era}:again`);
        expect(again.statusOf("s").protocolVersion).toBe(version);
      }, 60_000);
    }
  }

  it("a server that speaks neither era is unavailable with PROTOCOL_UNSUPPORTED and the versions tried", async () => {
    const manager = makeManager({ s: eraStdioEntry({ sdk: "v1", era: "neither" }) });
    const error = await rejection(manager.callTool("s", "echo", { text: "x" }));
    expect(error.code).toBe("PROTOCOL_UNSUPPORTED");
    const status = manager.statusOf("s");
    expect(status.state).toBe("unavailable");
    expect(status.code).toBe("PROTOCOL_UNSUPPORTED");
    expect(status.versionsTried).toEqual(["2026-07-28 (server/discover)", "2025-11-25 (initialize)"]);
    expect(status.versionsOffered).toEqual(["2099-01-01"]);
    expect(status.reason).toMatch(/^PROTOCOL_UNSUPPORTED: the server speaks no MCP protocol version Thinktank speaks \(tried 2026-07-28 \(server\/discover\), 2025-11-25 \(initialize\); it offers 2099-01-01\)/);
  }, 60_000);

  it("a remembered 2025 verdict that no longer holds (the server now speaks 2026-07-28 only) falls over to the probe", async () => {
    const entry = await httpEntry({ sdk: "v2", era: "modern" });
    const first = makeManager({ s: entry });
    await first.listTools("s");
    await first.close();
    // Write a stale legacy verdict into the cache, as an older run against a 2025 server would have.
    const file = fs.readdirSync(catalogDir()).map((name) => path.join(catalogDir(), name))[0] as string;
    const cached = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
    fs.writeFileSync(file, JSON.stringify({ ...cached, verdict: { era: "legacy" } }));
    const manager = makeManager({ s: entry });
    expect(textOf(await manager.callTool("s", "echo", { text: "x" }))).toBe("modern:x");
    expect(manager.statusOf("s").protocolVersion).toBe("2026-07-28");
  }, 60_000);

  it("a 2026-07-28 list is used for its ttlMs and asked for again after it (the tool-list cache follows the server)", async () => {
    const extra = path.join(temp.dir, "extra-tool");
    const entry = await httpEntry({ sdk: "v2", era: "modern" }, { ttlMs: 300, extraToolFile: extra });
    const manager = makeManager({ s: entry });
    await manager.listTools("s");
    expect(manager.knownTools("s")?.map((tool) => tool.name)).not.toContain("extra");
    expect(readCachedToolList(catalogDir(), "s")?.ttlMs).toBe(300);
    fs.writeFileSync(extra, "");
    // Background discovery (run on every agent request) re-lists a list past its ttlMs.
    await waitFor("the list to be asked for again after its ttlMs", () => {
      manager.discoverInBackground();
      return manager.knownTools("s")?.some((tool) => tool.name === "extra") === true;
    });
  }, 60_000);

  it("a 2025-era list has no ttlMs and is not asked for again on a timer", async () => {
    const manager = makeManager({ s: eraStdioEntry({ sdk: "v1" }) });
    await manager.listTools("s");
    expect(readCachedToolList(catalogDir(), "s")?.ttlMs).toBeUndefined();
  }, 30_000);
});

describe("input_required (2026-07-28) goes to the caller's handler", () => {
  for (const transport of ["stdio", "http"] as const) {
    it(`over ${transport}: the question is asked, the answer sent back with the server's requestState`, async () => {
      const entry = transport === "stdio" ? eraStdioEntry({ sdk: "v2", era: "modern" }) : await httpEntry({ sdk: "v2", era: "modern" });
      const manager = makeManager({ s: entry });
      const asked: string[] = [];
      const result = await manager.callTool(
        "s",
        "confirm",
        { action: "deploy" },
        {
          onInputRequired: async (requests, context) => {
            asked.push(questionForInputRequests(context.server, context.tool, requests));
            return inputResponsesFromAnswer(requests, { kind: "accept", text: "yes" });
          },
        },
      );
      expect(asked).toEqual(["MCP server 's' asks, for tool 'confirm':\nReally deploy?\nAnswer with: ok (boolean)."]);
      expect(textOf(result)).toBe("done: deploy (state asked:deploy)");
    }, 60_000);
  }

  it("a declined answer is sent as decline", async () => {
    const manager = makeManager({ s: eraStdioEntry({ sdk: "v2", era: "modern" }) });
    const result = await manager.callTool("s", "confirm", { action: "deploy" }, { onInputRequired: async (requests) => inputResponsesFromAnswer(requests, { kind: "decline" }) });
    expect(textOf(result)).toBe("not done: decline");
  }, 30_000);

  it("without a handler the call fails with MCP_INPUT_REQUIRED naming the question", async () => {
    const manager = makeManager({ s: eraStdioEntry({ sdk: "v2", era: "modern" }) });
    const error = await rejection(manager.callTool("s", "confirm", { action: "deploy" }));
    expect(error.code).toBe("MCP_INPUT_REQUIRED");
    expect(error.message).toContain("Really deploy?");
  }, 30_000);

  it("what the handler throws (a run's interrupt) leaves the call as it is, not retried or reworded", async () => {
    const manager = makeManager({ s: eraStdioEntry({ sdk: "v2", era: "modern" }) }, { mcp: { connect_timeout_ms: 20_000, call_timeout_ms: 20_000, retries: 3, retry_base_delay_ms: 10, catalog_dir: catalogDir() } });
    class Pause extends Error {}
    let rounds = 0;
    const thrown = await manager
      .callTool("s", "confirm", { action: "deploy" }, {
        onInputRequired: async () => {
          rounds += 1;
          throw new Pause("interrupt");
        },
      })
      .catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(Pause);
    expect(rounds).toBe(1);
    expect(manager.statusOf("s").state).toBe("connected");
  }, 30_000);
});

// The start-up log with servers that cannot connect: one summary line counting them by the state
// they ended in, each one's reason at debug level only. Before, every failing server logged its
// own warning ("mcp server failed to connect"), 63 of them with two plugins installed.
import path from "node:path";
import { freePort, makeTempDir } from "@thinktank/testing";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { ManagerLogger } from "./manager-types.js";
import { McpManager } from "./mcp-manager.js";
import { testServerEntry } from "./testing/test-server-entry.js";

type Line = { level: keyof ManagerLogger; fields: Record<string, unknown>; message: string };

const temp = makeTempDir("tt-mcp-summary-");
const managers: McpManager[] = [];
let catalogs = 0;
afterEach(async () => {
  for (const manager of managers.splice(0)) await manager.close();
});
afterAll(() => temp.cleanup());

function recordingManager(entries: ConstructorParameters<typeof McpManager>[1]): { manager: McpManager; lines: Line[] } {
  const lines: Line[] = [];
  const record = (level: keyof ManagerLogger) => (fields: object, message?: string) => void lines.push({ level, fields: fields as Record<string, unknown>, message: message ?? "" });
  const logger: ManagerLogger = { debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") };
  const manager = new McpManager(
    {
      mcp: { connect_timeout_ms: 1500, call_timeout_ms: 30_000, retries: 3, retry_base_delay_ms: 10, catalog_dir: path.join(temp.dir, `catalog-${catalogs++}`) },
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
      logger,
    },
    entries,
  );
  managers.push(manager);
  return { manager, lines };
}

describe("McpManager's start-up summary", () => {
  it("logs one line counting the servers that ended offline, with each one's failure at debug only", { timeout: 60_000 }, async () => {
    const [first, second] = [await freePort(), await freePort()];
    const { manager, lines } = recordingManager({
      working: testServerEntry(),
      "dead-one": { type: "http", url: `http://127.0.0.1:${first}/mcp` },
      "dead-two": { type: "http", url: `http://127.0.0.1:${second}/mcp` },
    });
    expect(manager.discoverInBackground()).toEqual(["dead-one", "dead-two", "working"]);
    await manager.settled();

    const warnings = lines.filter((line) => line.level === "warn" || line.level === "error");
    expect(warnings.map((line) => line.message)).toEqual(["mcp servers: 2 offline (of 3 MCP servers); `thinktank mcp list` shows each one's reason"]);
    expect(warnings[0]?.fields).toEqual({ offline: 2, needs_auth: 0, servers: 3 });
    const details = lines.filter((line) => line.message === "mcp server failed to connect");
    expect(details.map((line) => [line.level, line.fields.server])).toEqual(expect.arrayContaining([["debug", "dead-one"], ["debug", "dead-two"]]));
    expect(details).toHaveLength(2);

    // Later rounds (retries after the backoff) add no summary line.
    manager.discoverInBackground();
    await manager.settled();
    expect(lines.filter((line) => line.message.startsWith("mcp servers:"))).toHaveLength(1);
  });

  it("says so in one info line when every server connected", { timeout: 60_000 }, async () => {
    const { manager, lines } = recordingManager({ working: testServerEntry() });
    manager.discoverInBackground();
    await manager.settled();
    expect(lines.filter((line) => line.message.startsWith("mcp servers:")).map((line) => [line.level, line.message])).toEqual([["info", "mcp servers: none offline or waiting for sign-in (1 configured)"]]);
  });

  it("keeps a failure on a request's path a warning: that one is news", { timeout: 60_000 }, async () => {
    const { manager, lines } = recordingManager({ "dead-one": { type: "http", url: `http://127.0.0.1:${await freePort()}/mcp` } });
    await manager.connect("dead-one");
    expect(lines.some((line) => line.level === "warn" && line.message === "mcp server failed to connect")).toBe(true);
  });
});

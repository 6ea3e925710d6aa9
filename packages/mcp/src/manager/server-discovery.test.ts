// Background discovery: servers whose tools are unknown connect off the request path, a failed
// server is remembered with its reason and retried only after a backoff, and a server that comes
// up later is picked up by a later discovery.
import fs from "node:fs";
import path from "node:path";
import { freePort, makeTempDir } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadAllManagedTools } from "../langchain/load-managed-tools.js";
import type { McpServerEntry } from "../servers/server-entry.js";
import type { McpManagerOptions } from "./manager-types.js";
import { McpManager } from "./mcp-manager.js";
import { startEverythingOverHttp, type RunningHttpServer } from "./testing/reference-servers.js";
import { startSilentTcpServer, type SilentTcpServer } from "./testing/silent-tcp-server.js";
import { testServerEntry } from "./testing/test-server-entry.js";
import { waitFor } from "./testing/wait-for.js";

let temp: { dir: string; cleanup: () => void };
const cleanups: (() => Promise<unknown> | unknown)[] = [];
beforeEach(() => {
  temp = makeTempDir("tt-mcp-discovery-");
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  temp.cleanup();
});

function makeManager(entries: Record<string, McpServerEntry>, settings: Partial<McpManagerOptions["mcp"]> = {}): McpManager {
  const manager = new McpManager(
    {
      mcp: { connect_timeout_ms: 1500, call_timeout_ms: 30_000, retries: 3, retry_base_delay_ms: 10, catalog_dir: path.join(temp.dir, "catalog"), ...settings },
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    },
    entries,
  );
  cleanups.push(() => manager.close());
  return manager;
}

async function silentServer(): Promise<SilentTcpServer> {
  const server = await startSilentTcpServer();
  cleanups.push(() => server.close());
  return server;
}

const byName = (manager: McpManager) => Object.fromEntries(manager.status().map((status) => [status.name, status]));

describe("McpManager background discovery", () => {
  it("connects unknown servers in the background; failures are remembered with their reason and retried only after a backoff", { timeout: 120_000 }, async () => {
    const [refusedPort, otherRefusedPort] = [await freePort(), await freePort()];
    const silent = await silentServer();
    const refuseFile = path.join(temp.dir, "refuse");
    fs.writeFileSync(refuseFile, "");
    const manager = makeManager(
      {
        working: testServerEntry(),
        "dead-http": { type: "http", url: `http://127.0.0.1:${refusedPort}/mcp` },
        "dead-http-2": { type: "http", url: `http://127.0.0.1:${otherRefusedPort}/mcp` },
        silent: { type: "http", url: silent.url },
        refusing: testServerEntry({ TEST_SERVER_REFUSE_FILE: refuseFile }),
        "bad-entry": { type: "http", url: "" },
      },
      { discovery_concurrency: 2, discovery_retry_base_ms: 5000, discovery_retry_max_ms: 7000, first_connect_grace_ms: 60_000 },
    );

    // Never waits: the request path only starts the work. (The LangChain adapters load once per process on
    // first use, over a second on a loaded machine: loaded first, as any earlier request would have.)
    await import("@langchain/mcp-adapters");
    const started = performance.now();
    expect(manager.discoverInBackground()).toEqual(["dead-http", "dead-http-2", "refusing", "silent", "working"]);
    expect(manager.discoverInBackground()).toEqual([]); // already queued or connecting
    expect(manager.readyServers()).toEqual([]);
    const quick = await loadAllManagedTools(manager, { knownOnly: true });
    // Waiting for the silent server would take its whole connect timeout (1,500 ms): well under it means no wait, even on a loaded machine.
    expect(performance.now() - started).toBeLessThan(1500);
    // Only the working server can have connected meanwhile (a fast machine); every other one is listed unavailable without a wait.
    const quickUnavailable = quick.unavailable.map((entry) => entry.server);
    expect(quickUnavailable.filter((server) => server !== "working")).toEqual(["bad-entry", "dead-http", "dead-http-2", "refusing", "silent"]);
    if (quickUnavailable.includes("working")) {
      expect(quick.tools).toEqual([]);
      expect(quick.unavailable.find((entry) => entry.server === "working")?.reason).toContain("not known yet");
    }
    expect(manager.status().filter((status) => status.state === "connecting").length).toBeLessThanOrEqual(2); // the concurrency limit

    await manager.firstConnectsSettled();
    const failedAt = Date.now();
    expect(manager.readyServers()).toEqual(["working"]);
    const states = byName(manager);
    expect(states.working).toMatchObject({ state: "connected", toolCount: 7 });
    expect(states.working).not.toHaveProperty("failedConnects");
    for (const name of ["dead-http", "dead-http-2", "silent", "refusing"]) {
      expect(states[name], name).toMatchObject({ state: "unavailable", failedConnects: 1, reason: expect.any(String) });
      expect(states[name]?.retryAt, name).toBeGreaterThan(failedAt);
    }
    expect(states.silent?.reason).toContain("1500 ms");
    expect(states.refusing?.reason).toContain("refusing to start");
    expect(states["bad-entry"]).toMatchObject({ state: "unavailable", reason: "'url' is empty" });
    // One attempt, not the retry loop: an attempt may open a second connection (the transport's fallback), never more.
    expect(silent.connections()).toBeGreaterThanOrEqual(1);
    expect(silent.connections()).toBeLessThanOrEqual(2);
    const connectionsAfterFirst = silent.connections();

    // Inside the backoff nothing is tried again, however often it is asked.
    expect(manager.discoverInBackground()).toEqual([]);
    const ready = await loadAllManagedTools(manager, { servers: manager.readyServers(), knownOnly: true });
    expect(ready.tools.map((tool) => tool.name)).toContain("echo");
    expect(ready.unavailable).toEqual([]);

    // Two servers come back; after the backoff a later discovery picks them up.
    let everything: RunningHttpServer | undefined = await startEverythingOverHttp("streamableHttp", refusedPort);
    cleanups.push(() => everything?.kill());
    fs.rmSync(refuseFile);
    const retryAt = Math.max(...["dead-http", "dead-http-2", "silent", "refusing"].map((name) => byName(manager)[name]?.retryAt ?? 0));
    await waitFor("the backoff to pass", () => Date.now() >= retryAt, 30_000);
    const retriedFrom = Date.now();
    expect(manager.discoverInBackground()).toEqual(["dead-http", "dead-http-2", "refusing", "silent"]);
    await manager.settled();
    expect(manager.readyServers()).toEqual(["dead-http", "refusing", "working"]);
    const again = byName(manager);
    expect(again["dead-http"]).toMatchObject({ state: "connected", toolsFrom: "live" });
    expect(again["dead-http"]).not.toHaveProperty("failedConnects");
    // Still failing: the wait doubles (5000 → 10000), capped at discovery_retry_max_ms (7000).
    expect(again["dead-http-2"]).toMatchObject({ state: "unavailable", failedConnects: 2 });
    expect(again.silent).toMatchObject({ state: "unavailable", failedConnects: 2 });
    // Measured from before the retry (its failure came later) for the lower bound, from now for the upper one, so a loaded machine's delays never count.
    const retryAgainAt = again["dead-http-2"]?.retryAt ?? 0;
    expect(retryAgainAt - retriedFrom).toBeGreaterThan(5000);
    expect(retryAgainAt - Date.now()).toBeLessThanOrEqual(7000);
    expect(silent.connections()).toBeGreaterThan(connectionsAfterFirst); // tried again, once
    expect(silent.connections()).toBeLessThanOrEqual(connectionsAfterFirst + 2);

    await everything.kill();
    everything = undefined;
  });

  it("a request waits for a new server's first connect only within the grace period", { timeout: 60_000 }, async () => {
    const silent = await silentServer();
    const manager = makeManager(
      { working: testServerEntry(), silent: { type: "http", url: silent.url } },
      { connect_timeout_ms: 15_000, first_connect_grace_ms: 6_000 },
    );
    manager.discoverInBackground();
    // The working server connects within the grace; the silent one would take 15 s: the wait ends with the grace.
    const started = Date.now();
    await manager.firstConnectsSettled();
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(5_900);
    expect(waited).toBeLessThan(14_000);
    expect(manager.readyServers()).toEqual(["working"]);
    expect(byName(manager).silent).toMatchObject({ state: "connecting" });
    // Past the grace nobody waits for it any more.
    const later = Date.now();
    await manager.firstConnectsSettled();
    expect(Date.now() - later).toBeLessThan(200);
    // Closing stops the connect under way instead of waiting for its timeout.
    const closing = Date.now();
    await manager.close();
    expect(Date.now() - closing).toBeLessThan(3_000);
  });

  it("with first_connect_grace_ms 0 a request never waits", async () => {
    const manager = makeManager({ working: testServerEntry() }, { first_connect_grace_ms: 0 });
    manager.discoverInBackground();
    const started = Date.now();
    await manager.firstConnectsSettled();
    expect(Date.now() - started).toBeLessThan(100);
    await waitFor("the working server", () => manager.readyServers().includes("working"));
  });

  it("validates the discovery settings", () => {
    expect(() => makeManager({}, { discovery_concurrency: 0 })).toThrowError(/mcp.discovery_concurrency: expected an integer ≥ 1, got 0/);
    expect(() => makeManager({}, { first_connect_grace_ms: -1 })).toThrowError(/mcp.first_connect_grace_ms: expected an integer ≥ 0, got -1/);
  });
});

import { setImmediate as nextTurn } from "node:timers/promises";
import { createClient } from "redis";
import { needs, startRedis, type RedisServer } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisEventChannel } from "./redis-event-channel.js";

/**
 * Closing a channel whose connections are being re-established (a Redis restart, a network blip)
 * against a real redis-server: the client's own reconnect loop can outlive close() and come back
 * connected, or report "Socket closed unexpectedly" to a store that is gone.
 */
describe("RedisEventChannel closed while it reconnects", needs("redis"), () => {
  let server: RedisServer;
  let admin: ReturnType<typeof createClient>;
  const pubsubClients = async (): Promise<string> => String(await admin.sendCommand(["CLIENT", "LIST", "TYPE", "pubsub"])).trim();

  beforeAll(async () => {
    server = await startRedis();
    admin = createClient({ url: server.url });
    await admin.connect();
  });
  afterAll(async () => {
    admin?.destroy();
    await server?.stop();
  });

  it("reports nothing after close and leaves no connection, whenever close comes after a cut", async () => {
    const afterClose: string[] = [];
    for (let round = 0; round < 24; round++) {
      let closed = false;
      const channel = await RedisEventChannel.open(server.url, {
        retentionMs: 1000,
        onError: (error, what) => closed && afterClose.push(`round ${round}: ${what}: ${String(error)}`),
      });
      await channel.listen({ announced: () => undefined, reset: () => undefined });
      await admin.sendCommand(["CLIENT", "KILL", "TYPE", "pubsub"]);
      // Close at a different point of the reconnect each round: 0 to 7 turns of the event loop after the cut.
      for (let turn = 0; turn < round % 8; turn++) await nextTurn();
      await channel.close();
      closed = true;
    }
    // A reconnect that outlived close() connects within a few milliseconds on loopback; this is
    // the one window in which its absence can be seen (there is no event for "did not come back").
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await pubsubClients()).toBe("");
    await admin.sendCommand(["CLIENT", "KILL", "TYPE", "pubsub"]);
    expect(afterClose).toEqual([]);
  });
});

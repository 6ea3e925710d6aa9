import { createClient } from "redis";
import { describe, expect, it } from "vitest";
import { needs } from "./optional-parts.js";
import { startRedis } from "./redis-server.js";

describe("startRedis", needs("redis"), () => {
  it("starts a real redis-server that answers PING, SET and GET, and stops it", async () => {
    const server = await startRedis();
    const client = createClient({ url: server.url });
    client.on("error", () => undefined);
    try {
      await client.connect();
      expect(await client.ping()).toBe("PONG");
      await client.set("greeting", "hello");
      expect(await client.get("greeting")).toBe("hello");
      expect(server.output.lines.some((line) => line.includes(`port=${server.port}`))).toBe(true);
    } finally {
      client.destroy();
      await server.stop();
    }
    // Stopped: nothing answers on its port any more.
    await expect(createClient({ url: server.url, socket: { reconnectStrategy: false } }).on("error", () => undefined).connect()).rejects.toThrow();
  });

  it("starts servers side by side, each on its own port", async () => {
    const servers = await Promise.all([startRedis(), startRedis()]);
    try {
      expect(new Set(servers.map((server) => server.port)).size).toBe(2);
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
  });
});

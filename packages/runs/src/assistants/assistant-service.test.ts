// AssistantService over the one schema, on SQLite and (with THINKTANK_TEST_POSTGRES_URL) Postgres:
// versions (an update writes the next, concurrent updates each get one, latest pins an older one),
// owners, the built-in assistant, search and count filters and pages, the limit, and the thread's
// remembered assistant (setThreadMetadataKey leaves the status as it is).
import crypto from "node:crypto";
import path from "node:path";
import { makeTempDir, needs } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it, type TestOptions } from "vitest";
import type { Access } from "../owners/access.js";
import { openPostgresStore, openSqliteStore, type AgentStore } from "../persistence/agent-store.js";
import type { Assistant } from "./assistant-records.js";
import { AssistantService } from "./assistant-service.js";

const builtIn: Assistant = {
  assistant_id: "fe096781-5601-53d2-b2f6-0d3403f7e9ca",
  graph_id: "lead_agent",
  name: "lead_agent",
  description: null,
  config: {},
  context: {},
  metadata: { created_by: "system" },
  version: 1,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
};
const ann: Access = { owner: `usr_${crypto.randomUUID().slice(0, 8)}`, anyById: false, everyone: false };
// The Postgres test database outlives a run: what this run writes is told apart by its owners and this tag.
const tag = crypto.randomUUID().slice(0, 8);
const bob: Access = { owner: `usr_${crypto.randomUUID().slice(0, 8)}`, anyById: false, everyone: false };

function suite(name: string, open: () => Promise<AgentStore>, options: TestOptions = {}) {
  describe(name, options, () => {
    let store: AgentStore;
    let service: AssistantService;
    beforeAll(async () => {
      store = await open();
      service = new AssistantService({ store: store.assistants, builtIn, clock: () => new Date(), maxPerOwner: 3 });
    });
    afterAll(async () => store?.close());

    it("writes versions, makes each update current, pins an older one with latest", async () => {
      const created = await service.create({ graph_id: "lead_agent", name: "v1", metadata: { team: "a" }, context: { instructions: "one" } }, ann);
      const id = created.assistant_id;
      // Five updates at once: each gets a version of its own.
      const updated = await Promise.all([1, 2, 3, 4, 5].map((n) => service.update(id, { context: { instructions: `update ${n}` }, metadata: { n } }, ann)));
      expect(updated.map((each) => each.version).sort()).toEqual([2, 3, 4, 5, 6]);
      const versions = await service.versions(id, { limit: 10, offset: 0 }, ann);
      expect(versions.map((each) => each.version)).toEqual([6, 5, 4, 3, 2, 1]);
      expect(versions.at(-1)).toMatchObject({ name: "v1", metadata: { team: "a" } });
      expect(versions[0]?.metadata).toMatchObject({ team: "a" });
      expect((await service.get(id, ann)).version).toBe(6);
      const pinned = await service.setLatest(id, 1, ann);
      expect(pinned).toMatchObject({ version: 1, context: { instructions: "one" } });
      expect(await service.resolve(id, ann)).toEqual({ assistant_id: id, version: 1 });
      expect(await service.settingsOf({ assistant_id: id, version: 3 })).toMatchObject({ instructions: expect.stringMatching(/^update /) });
      await expect(service.setLatest(id, 99, ann)).rejects.toMatchObject({ code: "NOT_FOUND" });
      // A later update still writes the next number.
      expect((await service.update(id, { name: "v7" }, ann)).version).toBe(7);
      await service.delete(id, ann);
      await expect(service.settingsOf({ assistant_id: id, version: 1 })).rejects.toMatchObject({ code: "ASSISTANT_NOT_FOUND" });
    });

    it("answers another owner's assistant as a missing one, and keeps the built-in one read-only", async () => {
      const mine = await service.create({ graph_id: "lead_agent", name: "ann's" }, ann);
      for (const attempt of [() => service.get(mine.assistant_id, bob), () => service.update(mine.assistant_id, { name: "x" }, bob), () => service.delete(mine.assistant_id, bob), () => service.resolve(mine.assistant_id, bob)]) {
        await expect(attempt()).rejects.toMatchObject({ code: "ASSISTANT_NOT_FOUND" });
      }
      await expect(service.create({ graph_id: "lead_agent", assistant_id: mine.assistant_id, if_exists: "do_nothing" }, bob)).rejects.toMatchObject({ code: "CONFLICT" });
      expect((await service.create({ graph_id: "lead_agent", assistant_id: mine.assistant_id, if_exists: "do_nothing" }, ann)).assistant_id).toBe(mine.assistant_id);
      await expect(service.delete("lead_agent", ann)).rejects.toMatchObject({ code: "ASSISTANT_PROTECTED" });
      await expect(service.update(builtIn.assistant_id, { name: "x" }, ann)).rejects.toMatchObject({ code: "ASSISTANT_PROTECTED" });
      expect(await service.resolve("lead_agent", bob)).toEqual({ assistant_id: builtIn.assistant_id, version: 1 });
      await service.delete(mine.assistant_id, ann);
    });

    it("searches by graph, a part of the name, metadata; pages with the built-in one first; counts; holds the limit", async () => {
      for (const [index, team] of ["red", "blue", "red"].entries()) await service.create({ graph_id: "lead_agent", name: `Team ${team} ${index}`, metadata: { team: `${team}-${tag}` } }, bob);
      await expect(service.create({ graph_id: "lead_agent", name: "one too many" }, bob)).rejects.toMatchObject({ code: "ASSISTANT_LIMIT_REACHED" });
      const query = { limit: 2, offset: 0, sort_by: "name", sort_order: "asc" } as const;
      const first = await service.search(query, bob);
      expect(first.assistants.map((each) => each.name)).toEqual(["lead_agent", "Team blue 1"]);
      expect(first.next).toBe(2);
      const second = await service.search({ ...query, offset: 2 }, bob);
      expect(second.assistants.map((each) => each.name)).toEqual(["Team red 0", "Team red 2"]);
      expect(second.next).toBeUndefined();
      expect((await service.search({ ...query, limit: 10, metadata: { team: `red-${tag}` } }, bob)).assistants.map((each) => each.name)).toEqual(["Team red 0", "Team red 2"]);
      expect(await service.count({ name: "TEAM R" }, bob)).toBe(2);
      expect(await service.count({}, bob)).toBe(4);
      expect(await service.count({ graph_id: "other" }, bob)).toBe(0);
      // Another owner sees none of them; everyone's scope sees them all.
      expect(await service.count({}, ann)).toBe(1);
      expect(await service.count({ metadata: { team: `red-${tag}` } }, { owner: "admin", anyById: true, everyone: true })).toBe(2);
    });

    it("holds the per-owner limit against creates at once (one owner, many concurrent requests)", async () => {
      const carl: Access = { owner: `usr_${crypto.randomUUID().slice(0, 8)}`, anyById: false, everyone: false };
      const outcomes = await Promise.allSettled(Array.from({ length: 12 }, (_, n) => service.create({ graph_id: "lead_agent", name: `race ${n}` }, carl)));
      const made = outcomes.filter((outcome) => outcome.status === "fulfilled");
      expect(made).toHaveLength(3);
      for (const outcome of outcomes) if (outcome.status === "rejected") expect(outcome.reason).toMatchObject({ code: "ASSISTANT_LIMIT_REACHED" });
      expect(await service.count({}, carl)).toBe(4);
      // No version is left behind by a create the limit refused.
      expect((await store.assistants.search({ owner: carl.owner, limit: 100, offset: 0, sort_by: "created_at", sort_order: "asc" })).length).toBe(3);
    });

    it("sets one key of a thread's metadata and leaves its status alone", async () => {
      const now = new Date().toISOString();
      const threadId = `t-${crypto.randomUUID()}`;
      await store.metadata.createThread({ thread_id: threadId, created_at: now, updated_at: now, state_updated_at: now, metadata: { graph_id: "lead_agent", assistant_id: "a" }, status: "busy", values: null, interrupts: {}, error: null, owner_id: "admin" });
      await store.metadata.setThreadMetadataKey(threadId, "assistant_id", "b");
      expect(await store.metadata.getThread(threadId)).toMatchObject({ status: "busy", metadata: { graph_id: "lead_agent", assistant_id: "b" } });
    });
  });
}

const temp = makeTempDir("tt-assistants-");
afterAll(() => temp.cleanup());
suite("assistants on SQLite", () => openSqliteStore(path.join(temp.dir, "threads.sqlite")));
suite("assistants on Postgres", () => openPostgresStore(process.env.THINKTANK_TEST_POSTGRES_URL as string), needs("postgres"));

import crypto from "node:crypto";
import path from "node:path";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import Database from "better-sqlite3";
import pg from "pg";
import { makeTempDir, needs } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverAccess } from "../owners/access.js";
import { ThreadService } from "../threads/thread-service.js";
import { openPostgresStore, openSqliteStore, type AgentStore } from "./agent-store.js";
import { keepBlobRefs } from "./blob-ref-saver.js";

/**
 * Checkpoints with their large strings kept once per thread (blob-ref-saver.ts), on both backends:
 * what comes back is what went in (odd strings included), a turn stores about what it added, copies
 * and deletes carry the blobs.
 */
const temp = makeTempDir("tt-blobs-");
afterAll(() => temp.cleanup());
const postgresUrl = process.env.THINKTANK_TEST_POSTGRES_URL ?? "";

/** Bytes a thread holds in checkpoints, writes and blobs. */
type StoredBytes = (threadId: string) => Promise<number>;

const backends: { name: string; options: object; open: () => Promise<{ store: AgentStore; storedBytes: StoredBytes; close: () => Promise<void> }> }[] = [
  {
    name: "sqlite",
    options: {},
    open: async () => {
      const file = path.join(temp.dir, `${crypto.randomUUID()}.sqlite`);
      const store = await openSqliteStore(file);
      const reader = new Database(file, { readonly: true });
      const sum = (sql: string, threadId: string) => Number((reader.prepare(sql).get(threadId) as { n: number | null }).n ?? 0);
      return {
        store,
        storedBytes: async (threadId) =>
          sum("SELECT SUM(LENGTH(checkpoint) + LENGTH(metadata)) AS n FROM checkpoints WHERE thread_id = ?", threadId) +
          sum("SELECT SUM(LENGTH(value)) AS n FROM writes WHERE thread_id = ?", threadId) +
          sum("SELECT SUM(LENGTH(data)) AS n FROM thinktank_checkpoint_blobs WHERE thread_id = ?", threadId),
        close: async () => {
          reader.close();
          await store.close();
        },
      };
    },
  },
  {
    name: "postgres",
    options: needs("postgres"),
    open: async () => {
      const store = await openPostgresStore(postgresUrl);
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      const sum = async (sql: string, threadId: string) => Number((await client.query(sql, [threadId])).rows[0]?.n ?? 0);
      return {
        store,
        storedBytes: async (threadId) =>
          (await sum("SELECT SUM(pg_column_size(checkpoint) + pg_column_size(metadata)) AS n FROM checkpoints WHERE thread_id = $1", threadId)) +
          (await sum("SELECT SUM(LENGTH(blob)) AS n FROM checkpoint_blobs WHERE thread_id = $1", threadId)) +
          (await sum("SELECT SUM(LENGTH(blob)) AS n FROM checkpoint_writes WHERE thread_id = $1", threadId)) +
          (await sum("SELECT SUM(LENGTH(data)) AS n FROM thinktank_checkpoint_blobs WHERE thread_id = $1", threadId)),
        close: async () => {
          await client.end();
          await store.close();
        },
      };
    },
  },
];

/** A text of `bytes` characters that differs by `seed` (so no two turns share a blob). */
const text = (seed: string, bytes: number) => `${seed}:`.padEnd(bytes, `${seed} lorem ipsum, "quoted" \\ and\nnewlines; `);

for (const backend of backends) {
  describe(`BlobRefSaver (${backend.name})`, { ...backend.options, timeout: 60_000 }, () => {
    let opened: Awaited<ReturnType<(typeof backends)[number]["open"]>>;
    let threads: ThreadService;
    let graph: ReturnType<typeof echoGraph>;
    const echoGraph = (store: AgentStore) =>
      new StateGraph(MessagesAnnotation)
        .addNode("model", (state) => ({ messages: [new AIMessage({ content: `echo ${String(state.messages.at(-1)?.content)}`, additional_kwargs: { note: "x".repeat(20_000) } })] }))
        .addEdge(START, "model")
        .addEdge("model", END)
        .compile({ checkpointer: store.checkpointer });

    beforeAll(async () => {
      opened = await backend.open();
      graph = echoGraph(opened.store);
      threads = new ThreadService({ store: opened.store, clock: () => new Date(), stateGraph: graph, threadMetadata: {} });
    });
    afterAll(async () => opened?.close());

    const turn = (threadId: string, content: BaseMessage["content"]) => graph.invoke({ messages: [new HumanMessage({ content })] }, { configurable: { thread_id: threadId } });

    it("gives back every string as written: large, odd, and ones that look like markers", async () => {
      const thread = await threads.create({}, serverAccess);
      const odd = `${"😀".repeat(9_000)}\ud800 lone \udfff and \u0000 nul ${"é".repeat(10_000)}`;
      const lookalike = "thinktank-blob:1:0000000000000000000000000000000000000000000000000000000000000000:12";
      await turn(thread.thread_id, odd);
      await turn(thread.thread_id, lookalike);
      await turn(thread.thread_id, [{ type: "text", text: text("part", 40_000) }]);
      const messages = (await graph.getState({ configurable: { thread_id: thread.thread_id } })).values.messages as BaseMessage[];
      expect(messages.map((message) => message.content)).toEqual([odd, `echo ${odd}`, lookalike, `echo ${lookalike}`, [{ type: "text", text: text("part", 40_000) }], expect.any(String)]);
      expect(messages[1]?.additional_kwargs).toEqual({ note: "x".repeat(20_000) });
      // Stored as markers: a read that keeps them sees no large string.
      const raw = await opened.store.checkpointer.getTuple({ configurable: { thread_id: thread.thread_id, [keepBlobRefs]: true } });
      const rawMessages = (raw?.checkpoint.channel_values as { messages: BaseMessage[] }).messages;
      expect(rawMessages.every((message) => JSON.stringify(message.content).length < 200)).toBe(true);
      expect(String(rawMessages[2]?.content)).not.toBe(lookalike);
    });

    it("stores about what a turn adds, not the whole thread again", async () => {
      const thread = await threads.create({}, serverAccess);
      const size = 200_000;
      const perTurn: number[] = [];
      let before = await opened.storedBytes(thread.thread_id);
      for (let index = 0; index < 8; index++) {
        await turn(thread.thread_id, text(`turn ${index}`, size));
        const after = await opened.storedBytes(thread.thread_id);
        perTurn.push(after - before);
        before = after;
      }
      // A turn adds a human message and its echo (2 x 200 KB) plus the AI's 20 KB note: ~420 KB, whatever the turn's number.
      for (const bytes of perTurn) expect(bytes).toBeLessThan(2 * size * 1.25 + 60_000);
      const added = 8 * (2 * size + 20_000);
      expect(await opened.storedBytes(thread.thread_id)).toBeLessThan(added * 1.5);
    });

    it("copies a thread with its blobs and deletes a thread's blobs with it", async () => {
      const source = await threads.create({}, serverAccess);
      await turn(source.thread_id, text("copied", 100_000));
      const copy = await threads.copy(source.thread_id, serverAccess);
      expect(await opened.store.checkpointer.blobs.threadBytes(copy.thread_id)).toBeGreaterThan(100_000);
      await threads.delete(source.thread_id, serverAccess);
      expect(await opened.store.checkpointer.blobs.threadBytes(source.thread_id)).toBe(0);
      const messages = (await graph.getState({ configurable: { thread_id: copy.thread_id } })).values.messages as BaseMessage[];
      expect(messages.map((message) => message.content)).toEqual([text("copied", 100_000), `echo ${text("copied", 100_000)}`]);
      await turn(copy.thread_id, "and on");
      expect(((await graph.getState({ configurable: { thread_id: copy.thread_id } })).values.messages as BaseMessage[]).length).toBe(4);
      await threads.delete(copy.thread_id, serverAccess);
      expect(await opened.store.checkpointer.blobs.threadBytes(copy.thread_id)).toBe(0);
    });
  });
}

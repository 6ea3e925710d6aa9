import path from "node:path";
import { makeTempDir } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore, type AgentStore } from "../persistence/agent-store.js";
import { encodeBlob, markerOf } from "../persistence/blob-refs.js";
import { approximateJsonBytes } from "./json-bytes.js";
import { expandBlobMarkers, ThreadJson } from "./thread-json.js";

/** Documents with blob markers: their size known without the blobs, their text streamed with them. */
const temp = makeTempDir("tt-thread-json-");
let store: AgentStore;
beforeAll(async () => {
  store = await openSqliteStore(path.join(temp.dir, "threads.sqlite"));
});
afterAll(async () => {
  await store.close();
  temp.cleanup();
});

async function stored(threadId: string, value: string): Promise<string> {
  const { ref, chunks } = encodeBlob(value);
  await store.checkpointer.blobs.write(threadId, ref, chunks);
  return markerOf(ref);
}

async function text(document: ThreadJson): Promise<string> {
  const pieces: Buffer[] = [];
  for await (const piece of document.pieces(store.checkpointer.blobs)) pieces.push(piece);
  return Buffer.concat(pieces).toString("utf8");
}

describe("ThreadJson", () => {
  it("streams each blob into the text and knows the size beforehand", async () => {
    const large = `${"é😀\"\\\n\u0000".repeat(60_000)}\ud800 end`;
    const marker = await stored("t1", large);
    const value = { values: { messages: [{ type: "human", content: marker }, { type: "ai", content: "short", parts: [marker] }] }, next: [] };
    const document = new ThreadJson(value, "t1");
    const body = await text(document);
    expect(JSON.parse(body)).toEqual({ values: { messages: [{ type: "human", content: large }, { type: "ai", content: "short", parts: [large] }] }, next: [] });
    expect(Buffer.byteLength(body)).toBe(document.bytes);
    expect(await expandBlobMarkers(value, "t1", store.checkpointer.blobs)).toEqual(JSON.parse(body));
  });

  it("shows a marker whose blob the thread does not have as it is, and names no other thread's blob", async () => {
    const marker = await stored("t2", "x".repeat(20_000));
    expect(JSON.parse(await text(new ThreadJson({ content: marker }, "t3")))).toEqual({ content: marker });
    // A string that only contains a marker's text is not one.
    expect(JSON.parse(await text(new ThreadJson({ content: `see ${marker}` }, "t2")))).toEqual({ content: `see ${marker}` });
  });

  it("estimates a request's JSON size without making its text", () => {
    const input = { messages: [{ type: "human", content: "ü".repeat(1000) }], n: 12, ok: true, none: null };
    expect(Math.abs(approximateJsonBytes(input) - Buffer.byteLength(JSON.stringify(input)))).toBeLessThan(16);
  });
});

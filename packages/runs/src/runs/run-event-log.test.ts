import { describe, expect, it } from "vitest";
import { RunEventLog } from "./run-event-log.js";

async function take(iterable: AsyncIterable<{ id: string; event: string }>): Promise<string[]> {
  const seen: string[] = [];
  for await (const event of iterable) seen.push(`${event.id}:${event.event}`);
  return seen;
}

async function closeAndTake(log: RunEventLog): Promise<{ frame: string }[]> {
  log.close();
  const events: { frame: string }[] = [];
  for await (const event of log.follow()) events.push(event);
  return events;
}

describe("RunEventLog", () => {
  it("replays past events and follows new ones until closed", async () => {
    const log = new RunEventLog();
    log.push("metadata", "{}");
    const follower = log.follow()[Symbol.asyncIterator]();
    log.push("values", '{"a":1}');
    expect((await follower.next()).value).toMatchObject({ id: "0", event: "metadata" });
    expect((await follower.next()).value).toMatchObject({ id: "1", event: "values" });
    // The follower now waits for an event that has not been pushed yet.
    const waiting = follower.next();
    log.push("values", '{"a":2}');
    expect((await waiting).value).toMatchObject({ id: "2", event: "values" });
    const ended = follower.next();
    log.close();
    expect(await ended).toEqual({ done: true, value: undefined });
  });

  it("resumes after a Last-Event-ID, and ignores pushes once closed", async () => {
    const log = new RunEventLog();
    for (const name of ["metadata", "values", "updates"]) log.push(name, "null");
    log.close();
    log.push("late", "null");
    expect(await take(log.follow("0"))).toEqual(["1:values", "2:updates"]);
    expect(await take(log.follow("garbage"))).toHaveLength(3);
  });

  it("keeps each event as its SSE frame and counts its bytes", async () => {
    const grown: number[] = [];
    const log = new RunEventLog({ onGrow: (bytes) => grown.push(bytes) });
    log.push("values", '{"text":"é"}');
    const [event] = await closeAndTake(log);
    expect(event?.frame).toBe('id: 0\nevent: values\ndata: {"text":"é"}\n\n');
    expect(log.bytes).toBe(Buffer.byteLength(event?.frame ?? ""));
    expect(grown).toEqual([log.bytes]);
  });

  it("stops following when the signal aborts", async () => {
    const log = new RunEventLog();
    log.push("metadata", "null");
    const controller = new AbortController();
    const follower = log.follow(undefined, controller.signal)[Symbol.asyncIterator]();
    expect((await follower.next()).value).toMatchObject({ id: "0", event: "metadata" });
    // Waiting for the next event, which never comes: the abort ends the follow.
    const waiting = follower.next();
    controller.abort();
    expect(await waiting).toEqual({ done: true, value: undefined });
  });
});

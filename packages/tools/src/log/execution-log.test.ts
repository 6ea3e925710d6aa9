import fs from "node:fs";
import path from "node:path";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { ExecutionLog } from "./execution-log.js";
import type { ExecutionEntry } from "./execution-record.js";

let temp: { dir: string; cleanup: () => void } | undefined;
afterEach(() => temp?.cleanup());

function entry(tool: string, fields: Partial<ExecutionEntry> = {}): ExecutionEntry {
  return { tool, arguments: {}, started_at: "2026-01-01T00:00:00.000Z", duration_ms: 1, status: "success", output: { ok: true }, ...fields };
}

describe("ExecutionLog", () => {
  it("is private to the service: its folder is made 0700 and each day's file 0600", async () => {
    temp = makeTempDir("tt-log-");
    const dir = path.join(temp.dir, "logs", "tools");
    const log = new ExecutionLog({ dir, now: () => new Date("2026-03-01T12:00:00.000Z") });
    await log.record(entry("a", { arguments: { query: "private" } }));
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(dir, "tool-executions-2026-03-01.jsonl")).mode & 0o777).toBe(0o600);
  });

  it("writes one JSON line per call into one file per UTC day, rotating when the injected clock passes midnight", async () => {
    temp = makeTempDir("tt-log-");
    let now = new Date("2026-03-01T23:59:59.000Z");
    const log = new ExecutionLog({ dir: temp.dir, now: () => now });
    await log.record(entry("a"));
    now = new Date("2026-03-02T00:00:01.000Z");
    await log.record(entry("b"));
    await log.record(entry("c"));
    expect(await log.files()).toEqual(["tool-executions-2026-03-01.jsonl", "tool-executions-2026-03-02.jsonl"]);
    const second = fs.readFileSync(path.join(temp.dir, "tool-executions-2026-03-02.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as { tool: string; id: string });
    expect(second.map((r) => r.tool)).toEqual(["b", "c"]);
    expect(second[0]?.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("keeps files for the retention period and deletes older ones when the day changes", async () => {
    temp = makeTempDir("tt-log-");
    let now = new Date("2026-01-01T12:00:00.000Z");
    const log = new ExecutionLog({ dir: temp.dir, now: () => now, retentionDays: 30 });
    for (let day = 0; day < 45; day++) {
      now = new Date(Date.UTC(2026, 0, 1 + day, 12));
      await log.record(entry(`day${day}`));
    }
    const files = await log.files();
    // Today (Feb 14) and the 30 days before it.
    expect(files).toHaveLength(31);
    expect(files[0]).toBe("tool-executions-2026-01-15.jsonl");
    expect(files.at(-1)).toBe("tool-executions-2026-02-14.jsonl");
    // A file the clock says is stale is removed by prune() too (e.g. at start-up).
    now = new Date(Date.UTC(2026, 2, 31, 12));
    expect(await log.prune()).toHaveLength(31);
    expect(await log.files()).toEqual([]);
  });

  it("answers the recent calls newest first, across days, per tool, with a limit; skips a torn line", async () => {
    temp = makeTempDir("tt-log-");
    let now = new Date("2026-05-01T10:00:00.000Z");
    const log = new ExecutionLog({ dir: temp.dir, now: () => now });
    for (let index = 0; index < 5; index++) await log.record(entry(index % 2 === 0 ? "even" : "odd", { duration_ms: index }));
    now = new Date("2026-05-02T10:00:00.000Z");
    for (let index = 5; index < 8; index++) await log.record(entry(index % 2 === 0 ? "even" : "odd", { duration_ms: index }));
    fs.appendFileSync(path.join(temp.dir, "tool-executions-2026-05-02.jsonl"), '{"tool": "even", "dura');
    expect((await log.recent({ tool: "even", limit: 10 })).map((r) => r.duration_ms)).toEqual([6, 4, 2, 0]);
    expect((await log.recent({ limit: 3 })).map((r) => r.duration_ms)).toEqual([7, 6, 5]);
    expect(await log.recent({ tool: "nobody" })).toEqual([]);
  });

  it("finds recent calls at the end of a large file without parsing it all", async () => {
    temp = makeTempDir("tt-log-");
    const log = new ExecutionLog({ dir: temp.dir, now: () => new Date("2026-05-01T10:00:00.000Z") });
    const line = `${JSON.stringify(entry("bulk", { output: "x".repeat(200) }))}\n`;
    fs.writeFileSync(path.join(temp.dir, "tool-executions-2026-05-01.jsonl"), line.repeat(20_000));
    await log.record(entry("last"));
    const [latest] = await log.recent({ limit: 1 });
    expect(latest?.tool).toBe("last");
    expect(await log.recent({ tool: "bulk", limit: 5 })).toHaveLength(5);
  });

  it("redacts secrets in arguments (by key and by value) and under secret keys in the output", async () => {
    temp = makeTempDir("tt-log-");
    const log = new ExecutionLog({ dir: temp.dir });
    const args = {
      query: "weather in Seoul",
      api_key: "plain-looking",
      nested: { password: "hunter2", list: ["ghp_abcdefghijklmnopqrstuvwxyz0123456789", "fine"] },
      Authorization: "Bearer abc",
      header: "Bearer abcdefghijklmnop",
      opaque: "a1b2c3d4e5f6a7b8c9d0e1f2a3b4",
      id: "123e4567-e89b-12d3-a456-426614174000",
    };
    const record = await log.record(entry("search", { arguments: args, output: { token: "t0k3n", text: "ok" } }));
    expect(record.arguments).toEqual({
      query: "weather in Seoul",
      api_key: "[redacted]",
      nested: { password: "[redacted]", list: ["[redacted]", "fine"] },
      Authorization: "[redacted]",
      header: "Bearer [redacted]",
      opaque: "[redacted]",
      id: "123e4567-e89b-12d3-a456-426614174000",
    });
    expect(record.output).toEqual({ token: "[redacted]", text: "ok" });
    const text = (await log.files()).map((file) => fs.readFileSync(path.join(temp!.dir, file), "utf8")).join("");
    expect(text).not.toMatch(/hunter2|plain-looking|ghp_|abcdefghijklmnop|t0k3n/);
    expect(args.nested.password).toBe("hunter2");
  });

  it("cuts a huge output down to a preview, keeping lines under the limit", async () => {
    temp = makeTempDir("tt-log-");
    const log = new ExecutionLog({ dir: temp.dir, maxLineBytes: 4096 });
    const record = await log.record(entry("big", { output: { text: "y".repeat(100_000) } }));
    expect(record.output).toMatchObject({ truncated: true, bytes: expect.any(Number), preview: expect.stringMatching(/^\{"text":"yyy/) });
    const [line] = fs.readFileSync(path.join(temp.dir, (await log.files())[0] as string), "utf8").split("\n");
    expect(Buffer.byteLength(line ?? "")).toBeLessThanOrEqual(4096);
  });

  it("keeps a sandboxed call's egress connections bounded: the first ones listed, reasons cut short, the rest counted", async () => {
    temp = makeTempDir("tt-log-");
    const connection = (index: number, reason = `refused ${index}`) => ({ kind: "connect" as const, host: `h${index}.example.com`, port: 443, allowed: false, reason, status: 403, bytes_sent: 0, bytes_received: 0, ms: 1 });
    const log = new ExecutionLog({ dir: temp.dir, maxNetworkRecords: 3 });
    const record = await log.record(entry("net", { network: [connection(0, "r".repeat(1000)), ...[1, 2, 3, 4].map((index) => connection(index))], network_omitted: 10 }));
    expect(record.network?.map((each) => each.host)).toEqual(["h0.example.com", "h1.example.com", "h2.example.com"]);
    expect(record.network?.[0]?.reason).toHaveLength(300);
    expect(record.network_omitted).toBe(12);
    expect((await log.recent({ tool: "net" }))[0]).toEqual(record);
    // None: neither field.
    expect(await log.record(entry("quiet", { network: [] }))).not.toHaveProperty("network");

    // A line still over its limit lists fewer connections and counts them.
    const small = new ExecutionLog({ dir: temp.dir, maxLineBytes: 2048 });
    const many = await small.record(entry("many", { network: Array.from({ length: 40 }, (_, index) => connection(index, "x".repeat(200))) }));
    expect(many.network?.length).toBeLessThan(40);
    expect((many.network?.length ?? 0) + (many.network_omitted ?? 0)).toBe(40);
    expect(Buffer.byteLength(JSON.stringify(many))).toBeLessThanOrEqual(2048);
  });

  it("never fails the caller when the folder cannot be written", async () => {
    temp = makeTempDir("tt-log-");
    const blocker = path.join(temp.dir, "file");
    fs.writeFileSync(blocker, "");
    const problems: unknown[] = [];
    const log = new ExecutionLog({ dir: path.join(blocker, "logs"), onError: (error) => problems.push(error) });
    await expect(log.record(entry("x"))).resolves.toMatchObject({ tool: "x" });
    expect(problems).toHaveLength(1);
  });
});

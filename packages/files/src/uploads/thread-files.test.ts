import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { loadConfig } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, describe, expect, it } from "vitest";
import { ThreadFiles, type IncomingFile } from "./thread-files.js";

const temp = makeTempDir("tt-thread-files-");
writeTree(temp.dir, { "config.yaml": "data_dir: data\nfiles:\n  max_file_mb: 1\n  max_files: 3\n  max_thread_mb: 2\n  conversion:\n    enabled: false\n" });
const config = loadConfig({ cwd: temp.dir, env: {} });
const files = new ThreadFiles({ config, clock: () => new Date("2026-11-28T10:00:00Z") });
afterAll(() => temp.cleanup());

async function* parts(...items: IncomingFile[]): AsyncIterable<IncomingFile> {
  yield* items;
}
const text = (filename: string, content: string): IncomingFile => ({ filename, stream: Readable.from([Buffer.from(content)]) });
const staging = (thread: string) => path.join(config.data_dir, "user-data", thread, ".staging");

describe("ThreadFiles without a server", () => {
  it("records uploads in the manifest with increasing seqs, and uploadsSince answers what came after", async () => {
    const first = await files.upload("t-manifest", parts(text("a.txt", "alpha"), text("b.txt", "beta")));
    expect(first).toEqual([
      { seq: 1, name: "a.txt", path: "/mnt/user-data/uploads/a.txt", size: 5, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), mime_type: "text/plain", uploaded_at: "2026-11-28T10:00:00.000Z" },
      { seq: 2, name: "b.txt", path: "/mnt/user-data/uploads/b.txt", size: 4, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), mime_type: "text/plain", uploaded_at: "2026-11-28T10:00:00.000Z" },
    ]);
    await files.upload("t-manifest", parts(text("a.txt", "again")));
    expect((await files.uploadsSince("t-manifest", 1)).map((record) => [record.seq, record.name])).toEqual([[2, "b.txt"], [3, "a (1).txt"]]);
    // A delete never frees a seq for reuse.
    await files.remove("t-manifest", "uploads", "a (1).txt");
    expect((await files.upload("t-manifest", parts(text("c.txt", "gamma"))))[0]?.seq).toBe(4);
    // A torn last line (a crash mid-append) is skipped, the rest still read.
    fs.appendFileSync(path.join(config.data_dir, "user-data", "t-manifest", "uploads.jsonl"), '{"seq": 5, "na');
    expect((await files.uploadsSince("t-manifest", 0)).map((record) => record.seq)).toEqual([1, 2, 4]);
  });

  it("a stream that fails midway keeps nothing of its request, staging included", async () => {
    const failing = new Readable({
      read() {
        this.push(Buffer.alloc(64 * 1024));
        this.destroy(new Error("the client went away"));
      },
    });
    await expect(files.upload("t-fail", parts(text("kept-not.txt", "first"), { filename: "cut.bin", stream: failing }))).rejects.toThrow("the client went away");
    expect(fs.existsSync(path.join(config.data_dir, "user-data", "t-fail", "uploads"))).toBe(false);
    expect(fs.readdirSync(staging("t-fail"))).toEqual([]);
    expect(await files.uploadsSince("t-fail", 0)).toEqual([]);
  });

  it("sweeps staging folders a stopped process left, not one in progress", async () => {
    const old = path.join(staging("t-sweep"), "old-request");
    const fresh = path.join(staging("t-sweep"), "fresh-request");
    fs.mkdirSync(old, { recursive: true });
    fs.mkdirSync(fresh, { recursive: true });
    fs.writeFileSync(path.join(old, "0-x.bin"), "partial");
    const hourAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    fs.utimesSync(old, hourAgo, hourAgo);
    expect(await files.sweepStaging()).toBe(1);
    expect(fs.readdirSync(staging("t-sweep"))).toEqual(["fresh-request"]);
  });

  it("an upload whose thread is deleted meanwhile commits nothing and leaves no folder behind", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    async function* slow(): AsyncIterable<IncomingFile> {
      yield text("first.txt", "one");
      await held;
    }
    const upload = files.upload("t-deleted", slow());
    await expect.poll(() => fs.existsSync(staging("t-deleted")) && fs.readdirSync(staging("t-deleted")).length > 0).toBe(true);
    await files.removeThread("t-deleted");
    release();
    await expect(upload).rejects.toMatchObject({ code: "THREAD_NOT_FOUND" });
    expect(fs.existsSync(path.join(config.data_dir, "user-data", "t-deleted"))).toBe(false);
  });

  it("refuses an unsafe thread id before touching the disk", async () => {
    await expect(files.upload("../escape", parts(text("a.txt", "x")))).rejects.toMatchObject({ code: "VALIDATION_FAILED" });
    expect(fs.existsSync(path.join(config.data_dir, "escape"))).toBe(false);
  });
});

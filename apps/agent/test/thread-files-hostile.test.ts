// Issue 26, hostile uploads against a real agent server: odd and lying names, too many files, too
// large a file, a thread over its cap, concurrent uploads to one thread, and clients that go away
// midway. Each refusal keeps nothing of its request: no file, no manifest entry, no staging.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startFilesServer, type FilesServer } from "./support/files-server.js";
import { closing, partHeader, streamUpload } from "./support/multipart-stream.js";

const mib = 1024 * 1024;
type Stored = { name: string; path: string; size: number; sha256: string };

/** Everything under a folder, recursively, as relative paths. */
const tree = (folder: string) => (fs.existsSync(folder) ? fs.readdirSync(folder, { recursive: true }).map(String).sort() : []);

describe("hostile uploads (small limits: 1 MB a file, 10 files, 4 MB a thread)", { timeout: 60_000 }, () => {
  let files: FilesServer;
  beforeAll(async () => {
    files = await startFilesServer({ max_file_mb: 1, max_files: 10, max_thread_mb: 4 });
  }, 60_000);
  afterAll(async () => files?.close());

  /** Nothing of a refused request: no uploads, no manifest entry, no staging. */
  const expectNothingKept = async (thread: string) => {
    expect(tree(files.server.files.folders(thread).uploads)).toEqual([]);
    expect(await files.server.files.uploadsSince(thread, 0)).toEqual([]);
    expect(files.staging(thread)).toEqual([]);
  };

  it("makes odd names safe (sent byte for byte): traversal, absolute, bidi, zero-width, look-alike slashes and dots, NUL, very long, hidden; duplicates get numbered suffixes", async () => {
    const thread = await files.thread(files.alice);
    const names = [
      "../../../../etc/passwd",
      "/etc/shadow",
      "..\\..\\windows\\win.ini",
      "invoice\u202Efdp.exe",
      "zero\u200Bwidth.txt",
      "a\u2215b.txt",
      "a\uFF0Fb.txt",
      "x\u2024\u2024y.txt",
      "nul\u0000byte.txt",
      `${"long".repeat(100)}.csv`,
    ];
    const body = Buffer.concat([...names.flatMap((name, index) => [partHeader(name), Buffer.from(`file ${index}`), Buffer.from("\r\n")]), closing]);
    const answer = await fetch(`${files.url}/threads/${thread}/files`, { method: "POST", headers: { "x-api-key": files.alice, "content-type": "multipart/form-data; boundary=----thinktank-test-boundary-7c1f" }, body });
    expect(answer.status).toBe(201);
    const stored = ((await answer.json()) as { files: Stored[] }).files.map((file) => file.name);
    expect(stored.slice(0, 9)).toEqual(["passwd", "shadow", "win.ini", "invoicefdp.exe", "zerowidth.txt", "a_b.txt", "a_b (1).txt", "x__y.txt", "nulbyte.txt"]);
    expect(Buffer.byteLength(stored[9] as string)).toBeLessThanOrEqual(200);
    expect(stored[9]).toMatch(/^(long)+\.csv$/);
    // Only these files, all inside uploads; nothing written anywhere else.
    expect(tree(files.server.files.folders(thread).uploads)).toEqual([...stored].sort());
    expect(fs.existsSync(path.join(files.dataDir, "etc"))).toBe(false);
    expect(tree(path.join(files.dataDir, "user-data", thread)).filter((entry) => !entry.startsWith("uploads"))).toEqual(expect.not.arrayContaining([expect.stringMatching(/passwd|shadow|win\.ini/)]));

    // The same names again, and hidden ones: numbered, never overwritten, never hidden.
    const again = await files.upload(files.alice, thread, [{ name: "passwd", bytes: "second" }, { name: "passwd", bytes: "third" }, { name: ".bashrc", bytes: "rc" }, { name: "..", bytes: "dots" }]);
    const second = ((await again.json()) as { files: Stored[] }).files.map((file) => file.name);
    expect(second.slice(0, 3)).toEqual(["passwd (1)", "passwd (2)", "bashrc"]);
    expect(second[3]).toMatch(/^upload-[0-9a-f]{8}$/);
    expect(fs.readFileSync(path.join(files.server.files.folders(thread).uploads, "passwd"), "utf8")).toBe("file 0");
    // Seqs keep counting in upload order.
    expect((await files.server.files.uploadsSince(thread, 10)).map((record) => [record.seq, record.name])).toEqual(second.map((name, index) => [11 + index, name]));
  });

  it("11 files in one request: 413 TOO_MANY_FILES and nothing kept", async () => {
    const thread = await files.thread(files.alice);
    const answer = await files.upload(files.alice, thread, Array.from({ length: 11 }, (_, index) => ({ name: `f${index}.txt`, bytes: `file ${index}` })));
    expect([answer.status, ((await answer.json()) as { code: string }).code]).toEqual([413, "TOO_MANY_FILES"]);
    await expectNothingKept(thread);
    const ten = await files.upload(files.alice, thread, Array.from({ length: 10 }, (_, index) => ({ name: `f${index}.txt`, bytes: `file ${index}` })));
    expect(ten.status).toBe(201);
  });

  it("a file over files.max_file_mb: 413 FILE_TOO_LARGE, and the request's other files are not kept either; exactly the limit is fine", async () => {
    const thread = await files.thread(files.alice);
    const answer = await files.upload(files.alice, thread, [{ name: "ok.txt", bytes: "fine" }, { name: "big.bin", bytes: new Uint8Array(mib + 1) }]);
    expect([answer.status, ((await answer.json()) as { code: string }).code]).toEqual([413, "FILE_TOO_LARGE"]);
    await expectNothingKept(thread);
    expect((await files.upload(files.alice, thread, [{ name: "edge.bin", bytes: new Uint8Array(mib) }])).status).toBe(201);
  });

  it("the thread's cap counts uploads, outputs and the workspace: past it, 413 THREAD_FILES_FULL and nothing of that request kept", async () => {
    const thread = await files.thread(files.alice);
    const folders = files.server.files.folders(thread);
    fs.mkdirSync(folders.outputs, { recursive: true });
    fs.writeFileSync(path.join(folders.outputs, "made.bin"), Buffer.alloc(mib));
    fs.mkdirSync(folders.workspace, { recursive: true });
    fs.writeFileSync(path.join(folders.workspace, "work.bin"), Buffer.alloc(mib));
    expect((await files.upload(files.alice, thread, [{ name: "one.bin", bytes: new Uint8Array(mib) }])).status).toBe(201);
    const full = await files.upload(files.alice, thread, [{ name: "two.bin", bytes: new Uint8Array(mib / 2) }, { name: "three.bin", bytes: new Uint8Array(mib) }]);
    expect([full.status, ((await full.json()) as { code: string }).code]).toEqual([413, "THREAD_FILES_FULL"]);
    expect(tree(folders.uploads)).toEqual(["one.bin"]);
    expect(files.staging(thread)).toEqual([]);
    // Making room lets it in.
    fs.rmSync(path.join(folders.workspace, "work.bin"));
    expect((await files.upload(files.alice, thread, [{ name: "two.bin", bytes: new Uint8Array(mib / 2) }, { name: "three.bin", bytes: new Uint8Array(mib / 2) }])).status).toBe(201);
  });

  it("concurrent uploads to one thread: none lost or overwritten, distinct names, and the cap holds across them", async () => {
    const thread = await files.thread(files.alice);
    const payloads = Array.from({ length: 10 }, (_, index) => Buffer.alloc(mib / 2, index + 1));
    const answers = await Promise.all(payloads.map((bytes) => files.upload(files.alice, thread, [{ name: "same.bin", bytes }])));
    const statuses = answers.map((answer) => answer.status).sort();
    // 4 MB holds eight of the ten half-MB files, whatever the order they commit in.
    expect(statuses).toEqual([...Array(8).fill(201), 413, 413]);
    const stored = (await Promise.all(answers.filter((answer) => answer.status === 201).map(async (answer) => ((await answer.json()) as { files: Stored[] }).files[0] as Stored)));
    expect(new Set(stored.map((file) => file.name)).size).toBe(8);
    const uploads = files.server.files.folders(thread).uploads;
    for (const file of stored) {
      const bytes = fs.readFileSync(path.join(uploads, file.name));
      expect(crypto.createHash("sha256").update(bytes).digest("hex")).toBe(file.sha256);
    }
    // Each payload's bytes are there once: none overwritten.
    expect(new Set(stored.map((file) => file.sha256)).size).toBe(8);
    expect(tree(uploads).reduce((sum, name) => sum + fs.statSync(path.join(uploads, name)).size, 0)).toBeLessThanOrEqual(4 * mib);
    expect((await files.server.files.uploadsSince(thread, 0)).map((record) => record.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(files.staging(thread)).toEqual([]);
  });

  it("a client that goes away midway leaves nothing behind", async () => {
    const thread = await files.thread(files.alice);
    let seenStaging = false;
    const outcome = await streamUpload(`${files.url}/threads/${thread}/files`, files.alice, [{ name: "first.bin", size: 64 * 1024 }, { name: "cut.bin", size: 900 * 1024 }], {
      stopAfter: 600 * 1024,
      onProgress: async (sent) => {
        // The server is writing the cut file to staging before the client goes.
        if (sent >= 512 * 1024 && !seenStaging) {
          await vi.waitFor(() => expect(files.staging(thread).length).toBeGreaterThan(0), { timeout: 10_000, interval: 20 });
          seenStaging = true;
        }
      },
    });
    expect(outcome).toEqual({ aborted: true });
    expect(seenStaging).toBe(true);
    await vi.waitFor(() => expect(files.staging(thread)).toEqual([]), { timeout: 10_000, interval: 20 });
    await expectNothingKept(thread);
    // The server is fine after it.
    expect((await files.upload(files.alice, thread, [{ name: "after.txt", bytes: "fine" }])).status).toBe(201);
  });

  it("refuses what is not a multipart upload of 'file' fields, keeping nothing", async () => {
    const thread = await files.thread(files.alice);
    const json = await files.call(files.alice, "POST", `/threads/${thread}/files`, { body: { file: "x" } });
    expect([json.status, ((await json.json()) as { code: string }).code]).toEqual([415, "UNSUPPORTED_MEDIA_TYPE"]);
    const form = new FormData();
    form.append("attachment", new Blob(["x"]), "x.txt");
    const wrongField = await files.call(files.alice, "POST", `/threads/${thread}/files`, { body: form });
    expect([wrongField.status, ((await wrongField.json()) as { code: string }).code]).toEqual([400, "VALIDATION_FAILED"]);
    const empty = new FormData();
    empty.append("note", "no file here");
    const none = await files.call(files.alice, "POST", `/threads/${thread}/files`, { body: empty });
    expect([none.status, ((await none.json()) as { code: string }).code]).toEqual([400, "VALIDATION_FAILED"]);
    await expectNothingKept(thread);
  });
});

describe("hostile uploads at the default limits (50 MB a file)", { timeout: 120_000 }, () => {
  let files: FilesServer;
  beforeAll(async () => {
    files = await startFilesServer({});
  }, 60_000);
  afterAll(async () => files?.close());

  it("a 51 MB file: 413 FILE_TOO_LARGE and nothing kept", async () => {
    const thread = await files.thread(files.alice);
    const outcome = await streamUpload(`${files.url}/threads/${thread}/files`, files.alice, [{ name: "big.bin", size: 51 * mib }]);
    expect(outcome).toMatchObject({ status: 413 });
    expect(JSON.parse((outcome as { body: string }).body)).toMatchObject({ code: "FILE_TOO_LARGE" });
    expect(tree(files.server.files.folders(thread).uploads)).toEqual([]);
    await vi.waitFor(() => expect(files.staging(thread)).toEqual([]), { timeout: 10_000, interval: 20 });
  });

  it("a large stream cut midway: nothing left behind, and the server's memory stays bounded", async () => {
    const thread = await files.thread(files.alice);
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const outcome = await streamUpload(`${files.url}/threads/${thread}/files`, files.alice, [{ name: "huge.bin", size: 2048 * mib }], {
      stopAfter: 40 * mib,
      onProgress: () => {
        peak = Math.max(peak, process.memoryUsage().rss);
      },
    });
    expect(outcome).toEqual({ aborted: true });
    await vi.waitFor(() => expect(files.staging(thread)).toEqual([]), { timeout: 10_000, interval: 20 });
    expect(tree(files.server.files.folders(thread).uploads)).toEqual([]);
    // Client and server share this process: 40 MB went through it, and at most a few stream buffers stayed.
    expect(peak - before).toBeLessThan(32 * mib);
  });
});

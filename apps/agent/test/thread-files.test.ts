// Issue 26: a thread's files over the agent server's API, as a client would use them (fetch and
// FormData), with real files on disk: upload, list, download (ETag, Range, safe headers), delete;
// the thread's files follow its owner and go with it when it is deleted, and come with a copy.
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startFilesServer, type FilesServer } from "./support/files-server.js";

const sha = (bytes: Uint8Array | string) => crypto.createHash("sha256").update(bytes).digest("hex");
type Stored = { name: string; path: string; size: number; sha256: string; mime_type: string; converted?: { path: string; size: number } };

describe("thread files API", { timeout: 60_000 }, () => {
  let files: FilesServer;
  beforeAll(async () => {
    files = await startFilesServer({ max_file_mb: 1, max_files: 10, max_thread_mb: 4 }, { conversions: true });
  }, 60_000);
  afterAll(async () => files?.close());

  it("uploads, lists, downloads (bytes equal, ETag 304, Range 206 and 416, nosniff) and deletes", async () => {
    const thread = await files.thread(files.alice);
    const csv = "region,total\nnorth,10\nsouth,12\n";
    const binary = crypto.randomBytes(300_000);
    const uploaded = await files.upload(files.alice, thread, [
      { name: "q3.csv", bytes: csv },
      { name: "data.bin", bytes: binary },
    ]);
    expect(uploaded.status).toBe(201);
    const body = (await uploaded.json()) as { files: Stored[] };
    expect(body.files).toEqual([
      // Conversions are on by default: the CSV gets its Markdown side file (engineer B's converter, in the sandbox).
      { name: "q3.csv", path: "/mnt/user-data/uploads/q3.csv", size: csv.length, sha256: sha(csv), mime_type: "text/csv", converted: { path: "/mnt/user-data/uploads/q3.csv.md", size: expect.any(Number) } },
      { name: "data.bin", path: "/mnt/user-data/uploads/data.bin", size: binary.length, sha256: sha(binary), mime_type: "application/octet-stream" },
    ]);
    expect(uploaded.headers.get("x-content-type-options")).toBe("nosniff");

    const listed = (await (await files.call(files.alice, "GET", `/threads/${thread}/files?folder=uploads`)).json()) as { files: { name: string; size: number; sha256: string; mime_type: string; mtime: string }[] };
    expect(listed.files.map((file) => [file.name, file.size, file.sha256, file.mime_type])).toEqual([
      ["data.bin", binary.length, sha(binary), "application/octet-stream"],
      ["q3.csv", csv.length, sha(csv), "text/csv"],
      ["q3.csv.md", body.files[0]?.converted?.size, expect.stringMatching(/^[0-9a-f]{64}$/), "text/markdown"],
    ]);
    expect(await (await files.call(files.alice, "GET", `/threads/${thread}/files/uploads/q3.csv.md`)).text()).toContain("north");
    // A name with spaces and accents: its URL is percent-encoded per segment (as present_files' url is), its download names it in both forms.
    expect((await files.upload(files.alice, thread, [{ name: "my report é.txt", bytes: "hello" }])).status).toBe(201);
    const spaced = await files.call(files.alice, "GET", `/threads/${thread}/files/uploads/${encodeURIComponent("my report é.txt")}`);
    expect([await spaced.text(), spaced.headers.get("content-disposition")]).toEqual(["hello", `inline; filename="my report _.txt"; filename*=UTF-8''my%20report%20%C3%A9.txt`]);
    expect((await files.call(files.alice, "DELETE", `/threads/${thread}/files/uploads/${encodeURIComponent("my report é.txt")}`)).status).toBe(204);
    // A document that cannot be converted is kept, with the reason.
    const broken = (await (await files.upload(files.alice, thread, [{ name: "broken.pdf", bytes: "this is not a PDF" }])).json()) as { files: (Stored & { conversion_error?: string })[] };
    expect(broken.files[0]).toMatchObject({ name: "broken.pdf", size: 17, mime_type: "application/pdf", conversion_error: expect.any(String) });
    expect(broken.files[0]?.converted).toBeUndefined();
    expect(await (await files.call(files.alice, "GET", `/threads/${thread}/files/uploads/broken.pdf`)).text()).toBe("this is not a PDF");
    expect((await files.call(files.alice, "DELETE", `/threads/${thread}/files/uploads/broken.pdf`)).status).toBe(204);

    const whole = await files.call(files.alice, "GET", `/threads/${thread}/files/uploads/data.bin`);
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(binary)).toBe(true);
    expect(whole.headers.get("x-content-type-options")).toBe("nosniff");
    expect(whole.headers.get("content-disposition")).toMatch(/^attachment; filename="data.bin"/);
    const etag = whole.headers.get("etag") as string;
    expect(etag).toBeTruthy();
    // As a browser revalidates (fetch itself would add Cache-Control: no-cache to a conditional request, which asks for the whole body).
    expect((await files.call(files.alice, "GET", `/threads/${thread}/files/uploads/data.bin`, { headers: { "if-none-match": etag, "cache-control": "max-age=0" } })).status).toBe(304);

    const part = await files.call(files.alice, "GET", `/threads/${thread}/files/uploads/data.bin`, { headers: { range: "bytes=100-199" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 100-199/${binary.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(binary.subarray(100, 200))).toBe(true);
    const outside = await files.call(files.alice, "GET", `/threads/${thread}/files/uploads/data.bin`, { headers: { range: `bytes=${binary.length + 10}-` } });
    expect([outside.status, ((await outside.json()) as { code: string }).code]).toEqual([416, "RANGE_NOT_SATISFIABLE"]);
    expect(outside.headers.get("content-range")).toBe(`bytes */${binary.length}`);

    const text = await files.call(files.alice, "GET", `/threads/${thread}/files/uploads/q3.csv`);
    expect([text.headers.get("content-type"), text.headers.get("content-disposition")?.split(";")[0], await text.text()]).toEqual(["text/csv; charset=utf-8", "inline", csv]);

    expect((await files.call(files.alice, "DELETE", `/threads/${thread}/files/uploads/q3.csv`)).status).toBe(204);
    const gone = await files.call(files.alice, "GET", `/threads/${thread}/files/uploads/q3.csv`);
    expect([gone.status, ((await gone.json()) as { code: string }).code]).toEqual([404, "FILE_NOT_FOUND"]);
    expect((await files.call(files.alice, "DELETE", `/threads/${thread}/files/uploads/q3.csv`)).status).toBe(404);
    // The upload's Markdown side file went with it.
    const after = (await (await files.call(files.alice, "GET", `/threads/${thread}/files`)).json()) as { files: { name: string }[] };
    expect(after.files.map((file) => file.name)).toEqual(["data.bin"]);
    // The manifest follows: C's upload note reads uploadsSince.
    expect((await files.server.files.uploadsSince(thread, 0)).map((record) => [record.seq, record.name])).toEqual([[2, "data.bin"]]);
    expect((await files.server.files.uploadsSince(thread, 2)).map((record) => record.name)).toEqual([]);
    expect(files.staging(thread)).toEqual([]);
  });

  it("serves what a run wrote: outputs and the workspace, recursing, links out skipped and refused; HTML, SVG and JS as attachments under CSP sandbox", async () => {
    const thread = await files.thread(files.alice);
    const folders = files.server.files.folders(thread);
    fs.mkdirSync(path.join(folders.outputs, "charts"), { recursive: true });
    fs.writeFileSync(path.join(folders.outputs, "summary.md"), "# Summary\n");
    fs.writeFileSync(path.join(folders.outputs, "charts", "page.html"), "<script>alert(1)</script>");
    fs.writeFileSync(path.join(folders.outputs, "charts", "chart.svg"), "<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>");
    fs.writeFileSync(path.join(folders.outputs, "app.js"), "alert(1)");
    fs.writeFileSync(path.join(folders.outputs, "blob.unknownext"), "?");
    const secret = path.join(files.dataDir, "secret.txt");
    fs.writeFileSync(secret, "do not serve");
    fs.symlinkSync(secret, path.join(folders.outputs, "leak.txt"));
    fs.symlinkSync(files.dataDir, path.join(folders.outputs, "leakdir"));
    fs.mkdirSync(folders.workspace, { recursive: true });
    fs.writeFileSync(path.join(folders.workspace, "notes.txt"), "workspace notes");

    const listed = (await (await files.call(files.alice, "GET", `/threads/${thread}/files?folder=outputs`)).json()) as { files: { name: string; sha256: string }[] };
    expect(listed.files.map((file) => file.name)).toEqual(["app.js", "blob.unknownext", "charts/chart.svg", "charts/page.html", "summary.md"]);
    expect(listed.files.every((file) => /^[0-9a-f]{64}$/.test(file.sha256))).toBe(true);
    const workspace = (await (await files.call(files.alice, "GET", `/threads/${thread}/files?folder=workspace`)).json()) as { files: { name: string }[] };
    expect(workspace.files.map((file) => file.name)).toEqual(["notes.txt"]);
    expect(await (await files.call(files.alice, "GET", `/threads/${thread}/files/workspace/notes.txt`)).text()).toBe("workspace notes");

    for (const [file, type] of [["charts/page.html", "text/html; charset=utf-8"], ["charts/chart.svg", "image/svg+xml"], ["app.js", "text/javascript; charset=utf-8"], ["blob.unknownext", "application/octet-stream"]] as const) {
      const served = await files.call(files.alice, "GET", `/threads/${thread}/files/outputs/${file}`);
      expect(served.status).toBe(200);
      expect(served.headers.get("content-type")).toBe(type);
      expect(served.headers.get("content-disposition")).toMatch(/^attachment; /);
      expect(served.headers.get("content-security-policy")).toMatch(/^sandbox; default-src 'none'/);
      expect(served.headers.get("x-content-type-options")).toBe("nosniff");
      await served.arrayBuffer();
    }
    const markdown = await files.call(files.alice, "GET", `/threads/${thread}/files/outputs/summary.md`);
    expect([markdown.headers.get("content-disposition")?.split(";")[0], markdown.headers.get("content-security-policy")?.split(";")[0]]).toEqual(["inline", "sandbox"]);

    for (const route of ["outputs/leak.txt", "outputs/leakdir/secret.txt", "outputs/..%2f..%2fsecret.txt", "outputs/%2e%2e/%2e%2e/secret.txt", "uploads/..%2Foutputs%2Fsummary.md", "secrets/x", "outputs/"]) {
      const refused = await files.call(files.alice, "GET", `/threads/${thread}/files/${route}`);
      expect(refused.status, route).toBeGreaterThanOrEqual(400);
      expect(refused.status, route).toBeLessThan(500);
      expect(await refused.text(), route).not.toContain("do not serve");
    }
    expect((await files.call(files.alice, "DELETE", `/threads/${thread}/files/outputs/leakdir/secret.txt`)).status).toBe(400);
    expect(fs.existsSync(secret)).toBe(true);
  });

  it("another user's thread answers 404 for every file route, and so does a missing one", async () => {
    const thread = await files.thread(files.alice);
    expect((await files.upload(files.alice, thread, [{ name: "mine.txt", bytes: "alice's" }])).status).toBe(201);
    const attempts = [
      () => files.upload(files.bob, thread, [{ name: "theirs.txt", bytes: "bob's" }]),
      () => files.call(files.bob, "GET", `/threads/${thread}/files`),
      () => files.call(files.bob, "GET", `/threads/${thread}/files/uploads/mine.txt`),
      () => files.call(files.bob, "DELETE", `/threads/${thread}/files/uploads/mine.txt`),
      () => files.call(files.alice, "GET", `/threads/00000000-0000-4000-8000-000000000000/files`),
    ];
    for (const attempt of attempts) {
      const answer = await attempt();
      expect([answer.status, ((await answer.json()) as { code: string }).code]).toEqual([404, "THREAD_NOT_FOUND"]);
    }
    expect((await files.server.files.uploadsSince(thread, 0)).map((record) => record.name)).toEqual(["mine.txt"]);
    // The operator reaches it by id, as any thread.
    expect((await files.call(files.adminKey, "GET", `/threads/${thread}/files/uploads/mine.txt`)).status).toBe(200);
    // Reading a thread that has no outputs or workspace yet makes neither.
    expect(((await (await files.call(files.alice, "GET", `/threads/${thread}/files?folder=workspace`)).json()) as { files: unknown[] }).files).toEqual([]);
    expect((await files.call(files.alice, "GET", `/threads/${thread}/files/outputs/x.txt`)).status).toBe(404);
    expect([fs.existsSync(files.server.files.folders(thread).workspace), fs.existsSync(files.server.files.folders(thread).outputs)]).toEqual([false, false]);
    // No caller: 401 before anything is read.
    const anonymous = await fetch(`${files.url}/threads/${thread}/files`, { method: "POST", body: new FormData() });
    expect(anonymous.status).toBe(401);
    // An upload is a mutation: a page of another site cannot post one (a form post needs no preflight), with the key or without.
    const form = new FormData();
    form.append("file", new Blob(["from a web page"]), "page.txt");
    const crossSite = await files.call(files.alice, "POST", `/threads/${thread}/files`, { body: form, headers: { origin: "https://evil.example" } });
    expect([crossSite.status, ((await crossSite.json()) as { code: string }).code]).toEqual([403, "ORIGIN_NOT_ALLOWED"]);
    const noOrigin = await files.call(files.alice, "POST", `/threads/${thread}/files`, { body: form, headers: { "sec-fetch-site": "cross-site" } });
    expect(noOrigin.status).toBe(403);
    expect((await files.server.files.uploadsSince(thread, 0)).map((record) => record.name)).toEqual(["mine.txt"]);
  });

  it("deleting a thread removes its files (uploads, outputs, manifest, workspace); copying copies them", async () => {
    const thread = await files.thread(files.alice);
    expect((await files.upload(files.alice, thread, [{ name: "a.txt", bytes: "first" }])).status).toBe(201);
    const folders = files.server.files.folders(thread);
    fs.mkdirSync(folders.outputs, { recursive: true });
    fs.writeFileSync(path.join(folders.outputs, "out.txt"), "made");
    fs.mkdirSync(folders.workspace, { recursive: true });
    fs.writeFileSync(path.join(folders.workspace, "work.txt"), "work");
    // A FIFO a program left in the workspace does not stop the copy (it is not copied).
    execFileSync("mkfifo", [path.join(folders.workspace, "pipe")]);

    const copy = ((await (await files.call(files.alice, "POST", `/threads/${thread}/copy`)).json()) as { thread_id: string }).thread_id;
    expect(await (await files.call(files.alice, "GET", `/threads/${copy}/files/uploads/a.txt`)).text()).toBe("first");
    expect(await (await files.call(files.alice, "GET", `/threads/${copy}/files/outputs/out.txt`)).text()).toBe("made");
    expect(await (await files.call(files.alice, "GET", `/threads/${copy}/files/workspace/work.txt`)).text()).toBe("work");
    expect(fs.existsSync(path.join(files.server.files.folders(copy).workspace, "pipe"))).toBe(false);
    expect((await files.server.files.uploadsSince(copy, 0)).map((record) => record.name)).toEqual(["a.txt"]);

    expect((await files.call(files.alice, "DELETE", `/threads/${thread}`)).status).toBe(204);
    expect(fs.existsSync(path.join(files.dataDir, "user-data", thread))).toBe(false);
    expect(fs.existsSync(folders.workspace)).toBe(false);
    // The copy keeps its own.
    expect(await (await files.call(files.alice, "GET", `/threads/${copy}/files/uploads/a.txt`)).text()).toBe("first");

    const pruned = await files.call(files.alice, "POST", "/threads/prune", { body: { thread_ids: [copy] } });
    expect(((await pruned.json()) as { pruned_count: number }).pruned_count).toBe(1);
    expect(fs.existsSync(path.join(files.dataDir, "user-data", copy))).toBe(false);
    expect(fs.existsSync(files.server.files.folders(copy).workspace)).toBe(false);
  });

  it("a stateless run's temporary thread takes its folders with it", async () => {
    const userData = path.join(files.dataDir, "user-data");
    const before = new Set(fs.existsSync(userData) ? fs.readdirSync(userData) : []);
    const answer = await files.call(files.alice, "POST", "/runs/wait", { body: { assistant_id: "lead_agent", input: { messages: [{ type: "human", content: "list /mnt/user-data/outputs" }] } } });
    // The run's ls made the temporary thread's outputs folder (the answer shows it listed it, empty).
    const messages = ((await answer.json()) as { messages: { content: string }[] }).messages;
    expect(messages.at(-1)?.content).toContain("(empty folder)");
    await vi.waitFor(() => expect(fs.readdirSync(userData).filter((name) => !before.has(name))).toEqual([]), { timeout: 10_000, interval: 20 });
  });
});

import fs from "node:fs";
import path from "node:path";
import AdmZip from "adm-zip";
import { MemoryStore } from "@thinktank/memory";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestGateway } from "./test-gateway.js";
import type { TestGateway } from "./test-gateway.js";

const adminKey = "memory-routes-admin-key-00000001";

let gateway: TestGateway;
let alice: { id: string; key: string };
let bob: { id: string; key: string };
beforeEach(async () => {
  gateway = await createTestGateway({ apiKey: adminKey });
  alice = await newUser("alice");
  bob = await newUser("bob");
});
afterEach(async () => {
  await gateway.close();
});

async function newUser(name: string, role: "user" | "admin" = "user"): Promise<{ id: string; key: string }> {
  const created = await gateway.app.inject({ method: "POST", url: "/api/users", headers: { "x-api-key": adminKey }, payload: { name, role } });
  expect(created.statusCode).toBe(201);
  const body = created.json() as { id: string; api_key: string };
  return { id: body.id, key: body.api_key };
}

async function call(method: "GET" | "PUT" | "DELETE", url: string, key: string | undefined, payload?: object): Promise<{ status: number; body: Record<string, unknown>; headers: Record<string, unknown>; raw: Buffer }> {
  const response = await gateway.app.inject({ method, url, headers: key ? { "x-api-key": key } : {}, ...(payload ? { payload } : {}) });
  const json = String(response.headers["content-type"] ?? "").includes("json") && response.body ? (response.json() as Record<string, unknown>) : {};
  return { status: response.statusCode, body: json, headers: response.headers, raw: response.rawPayload };
}

const paths = (body: Record<string, unknown>): string[] => (body.files as { path: string }[]).map((file) => file.path);

async function auditActions(): Promise<{ action: string; target?: string; actor?: string; outcome: string; detail?: Record<string, unknown> }[]> {
  const answer = await call("GET", "/api/audit?limit=200", adminKey);
  expect(answer.status).toBe(200);
  return (answer.body.entries as { action: string; target?: string; actor?: { id: string } | string; outcome: string; detail?: Record<string, unknown> }[]).map((entry) => ({
    ...entry,
    actor: typeof entry.actor === "object" ? entry.actor?.id : entry.actor,
  }));
}

describe("/api/memory", () => {
  it("writes, lists, reads and deletes the caller's own files, with sizes and dates, private to the caller", async () => {
    const written = await call("PUT", "/api/memory/profile.md", alice.key, { content: "- Name: Alice\n- Works on Orion\n" });
    expect(written.status).toBe(200);
    expect(written.body).toMatchObject({ path: "/memories/profile.md", size: 31 });
    expect((await call("PUT", "/api/memory/projects/orion.md", alice.key, { content: "Orion ships in May." })).status).toBe(200);

    const listed = await call("GET", "/api/memory", alice.key);
    expect(listed.status).toBe(200);
    expect(listed.headers["cache-control"]).toBe("no-store");
    expect(listed.body).toMatchObject({ total_bytes: 31 + 19, settings: { enabled: true, auto: false }, defaults: { enabled: true, auto: false }, limits: { max_files: 500, max_kb: 2048 } });
    expect(paths(listed.body)).toEqual(["/memories/profile.md", "/memories/projects/orion.md"]);
    for (const file of listed.body.files as { modified: string }[]) expect(Date.parse(file.modified)).not.toBeNaN();

    const read = await call("GET", "/api/memory/projects/orion.md", alice.key);
    expect(read.body).toMatchObject({ path: "/memories/projects/orion.md", content: "Orion ships in May.", size: 19 });
    // On disk under <data_dir>/memory/<alice's folder>, 0600.
    const file = path.join(new MemoryStore({ root: path.join(gateway.config.data_dir, "memory"), limits: { maxFiles: 1, maxBytes: 1 } }).folderOf(alice.id), "profile.md");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    expect((await call("DELETE", "/api/memory/projects/orion.md", alice.key)).status).toBe(204);
    expect((await call("GET", "/api/memory/projects/orion.md", alice.key)).body).toMatchObject({ code: "MEMORY_NOT_FOUND" });
    expect((await call("DELETE", "/api/memory/projects/orion.md", alice.key)).status).toBe(404);
  });

  it("two users never cross, in either direction; the same path is each one's own", async () => {
    await call("PUT", "/api/memory/profile.md", alice.key, { content: "alice secret" });
    await call("PUT", "/api/memory/profile.md", bob.key, { content: "bob secret" });
    await call("PUT", "/api/memory/only-alice.md", alice.key, { content: "a" });
    expect(paths((await call("GET", "/api/memory", alice.key)).body)).toEqual(["/memories/only-alice.md", "/memories/profile.md"]);
    expect(paths((await call("GET", "/api/memory", bob.key)).body)).toEqual(["/memories/profile.md"]);
    expect((await call("GET", "/api/memory/profile.md", alice.key)).body.content).toBe("alice secret");
    expect((await call("GET", "/api/memory/profile.md", bob.key)).body.content).toBe("bob secret");
    expect((await call("GET", "/api/memory/only-alice.md", bob.key)).status).toBe(404);
    // Bob's delete and forget touch only his.
    expect((await call("DELETE", "/api/memory/only-alice.md", bob.key)).status).toBe(404);
    expect((await call("DELETE", "/api/memory", bob.key)).body).toEqual({ removed: 1 });
    expect((await call("GET", "/api/memory/profile.md", alice.key)).body.content).toBe("alice secret");
    // No path names another user's folder: traversal and absolute paths are refused.
    for (const url of ["/api/memory/..%2F..%2Fetc%2Fpasswd", "/api/memory/%2E%2E/x.md", "/api/memory/a/../../x.md", "/api/memory/.hidden.md"]) {
      const refused = await call("GET", url, bob.key);
      expect([400, 404], url).toContain(refused.status);
      expect(JSON.stringify(refused.body), url).not.toContain("alice secret");
    }
    const traversal = await call("PUT", "/api/memory/..%2Fother%2Fprofile.md", bob.key, { content: "x" });
    expect(traversal.status).toBe(400);
    expect(traversal.body).toMatchObject({ code: "MEMORY_PATH_INVALID" });
  });

  it("administrators see only their own memory through the plain routes; another user's takes the audited route with a reason", async () => {
    await call("PUT", "/api/memory/profile.md", alice.key, { content: "alice secret" });
    const root = await newUser("root", "admin");
    for (const key of [adminKey, root.key]) {
      expect(paths((await call("GET", "/api/memory", key)).body)).toEqual([]);
      expect((await call("GET", "/api/memory/profile.md", key)).status).toBe(404);
    }
    // A user may not use the administrators' route, even on their own id.
    expect((await call("GET", `/api/users/${alice.id}/memory?reason=curious`, bob.key)).status).toBe(403);
    expect((await call("GET", `/api/users/${alice.id}/memory?reason=mine`, alice.key)).status).toBe(403);
    // Without a reason: 400, nothing read.
    const bare = await call("GET", `/api/users/${alice.id}/memory`, adminKey);
    expect(bare.status).toBe(400);
    expect(bare.body.files).toBeUndefined();

    const listed = await call("GET", `/api/users/${alice.id}/memory?reason=${encodeURIComponent("support ticket 42")}`, root.key);
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ user: alice.id });
    expect(paths(listed.body)).toEqual(["/memories/profile.md"]);
    const read = await call("GET", `/api/users/${alice.id}/memory/profile.md?reason=${encodeURIComponent("support ticket 42")}`, root.key);
    expect(read.body).toMatchObject({ content: "alice secret" });

    const audit = await auditActions();
    expect(audit).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ action: "memory.admin_list", target: alice.id, actor: root.id, outcome: "ok", detail: expect.objectContaining({ reason: "support ticket 42" }) }),
        expect.objectContaining({ action: "memory.admin_read", target: `${alice.id}:/memories/profile.md`, actor: root.id, outcome: "ok", detail: expect.objectContaining({ reason: "support ticket 42" }) }),
        expect.objectContaining({ action: "access.denied", actor: bob.id, outcome: "denied" }),
      ]),
    );

    // An administrator can erase a user's memory the same way (audited).
    expect((await call("DELETE", `/api/users/${alice.id}/memory?reason=${encodeURIComponent("erasure request")}`, adminKey)).body).toEqual({ removed: 1 });
    expect(paths((await call("GET", "/api/memory", alice.key)).body)).toEqual([]);
    expect(await auditActions()).toEqual(expect.arrayContaining([expect.objectContaining({ action: "memory.admin_forget", target: alice.id, detail: expect.objectContaining({ reason: "erasure request" }) })]));
  });

  it("forget everything removes every file and the user's folder; changes are audited", async () => {
    await call("PUT", "/api/memory/a.md", alice.key, { content: "a" });
    await call("PUT", "/api/memory/deep/b/c.md", alice.key, { content: "c" });
    const folder = MemoryStore.fromConfig(gateway.config).folderOf(alice.id);
    expect(fs.existsSync(folder)).toBe(true);
    expect((await call("DELETE", "/api/memory", alice.key)).body).toEqual({ removed: 2 });
    expect(fs.existsSync(folder)).toBe(false);
    expect((await call("GET", "/api/memory", alice.key)).body).toMatchObject({ files: [], total_bytes: 0 });
    expect((await call("DELETE", "/api/memory", alice.key)).body).toEqual({ removed: 0 });
    const actions = (await auditActions()).filter((entry) => entry.actor === alice.id).map((entry) => `${entry.action} ${entry.target ?? ""}`);
    expect(actions).toEqual(expect.arrayContaining(["memory.write /memories/a.md", "memory.write /memories/deep/b/c.md", `memory.forget ${alice.id}`]));
  });

  it("exports a real zip of the files", async () => {
    await call("PUT", "/api/memory/profile.md", alice.key, { content: "- Name: Alice\n" });
    await call("PUT", "/api/memory/projects/orion.md", alice.key, { content: "Orion ✓ ships in May." });
    await call("PUT", "/api/memory/bob.md", bob.key, { content: "bob" });
    const exported = await call("GET", "/api/memory/export", alice.key);
    expect(exported.status).toBe(200);
    expect(exported.headers["content-type"]).toBe("application/zip");
    expect(String(exported.headers["content-disposition"])).toMatch(/^attachment; filename="memory-\d{4}-\d{2}-\d{2}\.zip"$/);
    const zip = new AdmZip(exported.raw);
    const entries = Object.fromEntries(zip.getEntries().map((entry) => [entry.entryName, entry.getData().toString("utf8")]));
    expect(entries).toEqual({ "profile.md": "- Name: Alice\n", "projects/orion.md": "Orion ✓ ships in May." });
    // An empty memory exports an empty (valid) zip.
    const empty = await call("GET", "/api/memory/export", adminKey);
    expect(new AdmZip(empty.raw).getEntries()).toHaveLength(0);
  });

  it("settings: kept at users.<id>.memory through the store, answered as what applies; the server's switch wins", async () => {
    const off = await call("PUT", "/api/memory/settings", alice.key, { enabled: false });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ enabled: false, auto: false });
    const document = JSON.parse(fs.readFileSync(gateway.file, "utf8")) as { users: Record<string, { memory?: unknown }>; revision: number };
    expect(document.users[alice.id]?.memory).toEqual({ enabled: false });
    expect(document.revision).toBeGreaterThan(0);
    expect((await call("GET", "/api/memory", bob.key)).body.settings).toEqual({ enabled: true, auto: false });
    // The files stay reachable while memory is off for runs.
    expect((await call("PUT", "/api/memory/kept.md", alice.key, { content: "still mine" })).status).toBe(200);
    expect((await call("PUT", "/api/memory/settings", alice.key, { enabled: true, auto: true })).body).toEqual({ enabled: true, auto: true });
    expect(JSON.parse(fs.readFileSync(gateway.file, "utf8")).users[alice.id].memory).toEqual({ enabled: true, auto: true });
    expect((await call("GET", "/api/memory", alice.key)).body.settings).toEqual({ enabled: true, auto: true });
    for (const bad of [{}, { enabled: "yes" }, { auto: "sometimes" }]) {
      const refused = await call("PUT", "/api/memory/settings", alice.key, bad);
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      expect(refused.body.code).toBe("VALIDATION_FAILED");
    }
    expect(await auditActions()).toEqual(expect.arrayContaining([expect.objectContaining({ action: "memory.settings", actor: alice.id, detail: expect.objectContaining({ enabled: true, auto: true }) })]));
  });

  it("caps: past memory.max_files or memory.max_kb a write is 413 MEMORY_FULL and nothing is written", async () => {
    await gateway.close();
    gateway = await createTestGateway({ apiKey: adminKey, configYaml: "memory:\n  max_files: 2\n  max_kb: 1\n" });
    alice = await newUser("alice");
    expect((await call("PUT", "/api/memory/a.md", alice.key, { content: "a" })).status).toBe(200);
    expect((await call("PUT", "/api/memory/b.md", alice.key, { content: "b" })).status).toBe(200);
    const third = await call("PUT", "/api/memory/c.md", alice.key, { content: "c" });
    expect(third).toMatchObject({ status: 413, body: { code: "MEMORY_FULL" } });
    const big = await call("PUT", "/api/memory/a.md", alice.key, { content: "x".repeat(2000) });
    expect(big).toMatchObject({ status: 413, body: { code: "MEMORY_FULL" } });
    expect(paths((await call("GET", "/api/memory", alice.key)).body)).toEqual(["/memories/a.md", "/memories/b.md"]);
    expect((await call("GET", "/api/memory/a.md", alice.key)).body.content).toBe("a");
  });

  it("a deleted user's memory goes with them", async () => {
    await call("PUT", "/api/memory/profile.md", alice.key, { content: "alice" });
    const folder = MemoryStore.fromConfig(gateway.config).folderOf(alice.id);
    expect(fs.existsSync(folder)).toBe(true);
    expect((await call("DELETE", `/api/users/${alice.id}`, adminKey)).status).toBe(204);
    expect(fs.existsSync(folder)).toBe(false);
  });

  it("needs a caller: no credentials on a keyed gateway is 401", async () => {
    expect((await call("GET", "/api/memory", undefined)).status).toBe(401);
    expect((await call("PUT", "/api/memory/settings", undefined, { enabled: false })).status).toBe(401);
  });
});

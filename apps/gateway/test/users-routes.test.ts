import { afterEach, describe, expect, it } from "vitest";
import { multipartUpload } from "./multipart-upload.js";
import { createTestGateway } from "./test-gateway.js";
import type { TestGateway } from "./test-gateway.js";

const adminKey = "admin-key-for-users-routes-0001";
let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function call(method: "GET" | "POST" | "PUT" | "DELETE", url: string, key: string | undefined, payload?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await gateway!.app.inject({ method, url, headers: { ...(key ? { "x-api-key": key } : {}), ...headers }, ...(payload === undefined ? {} : { payload: payload as object }) });
  return { status: response.statusCode, body: response.body ? (response.json() as Record<string, unknown>) : {} };
}

async function newUser(name: string, role: "user" | "admin" = "user"): Promise<{ id: string; key: string; keyId: string }> {
  const created = await call("POST", "/api/users", adminKey, { name, role });
  expect(created.status).toBe(201);
  return { id: created.body.id as string, key: created.body.api_key as string, keyId: created.body.key_id as string };
}

describe("users and keys", () => {
  it("creates a user with a key shown once, lists and reads them without it, and refuses bad names, roles and unknown ids with codes", async () => {
    gateway = await createTestGateway({ apiKey: adminKey });
    const created = await call("POST", "/api/users", adminKey, { name: "Ada Lovelace", role: "user" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^usr_[0-9a-f]+$/), name: "Ada Lovelace", role: "user", api_key: expect.stringMatching(/^tt_u_/) });
    const key = created.body.api_key as string;
    const id = created.body.id as string;

    const listed = await call("GET", "/api/users", adminKey);
    expect(listed.status).toBe(200);
    expect(listed.body.users).toEqual([expect.objectContaining({ id, name: "Ada Lovelace", role: "user", keys: [expect.objectContaining({ id: created.body.key_id })] })]);
    const one = await call("GET", `/api/users/${id}`, adminKey);
    expect(one.body).toMatchObject({ id, name: "Ada Lovelace", role: "user" });
    // The key is in the create answer only.
    expect(JSON.stringify([listed.body, one.body])).not.toContain(key.slice(-20));

    for (const [body, path] of [
      [{ name: "", role: "user" }, "body.name"],
      [{ name: "x".repeat(65), role: "user" }, "body.name"],
      [{ name: "<script>", role: "user" }, "body.name"],
      [{ name: "bob", role: "owner" }, "body.role"],
      [{ name: "bob" }, "body.role"],
    ] as const) {
      const refused = await call("POST", "/api/users", adminKey, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body).toMatchObject({ code: "VALIDATION_FAILED", details: { problems: [expect.objectContaining({ path })] } });
    }
    for (const [method, url] of [["GET", "/api/users/usr_0000000000000000"], ["DELETE", "/api/users/usr_0000000000000000"], ["POST", "/api/users/usr_0000000000000000/keys"], ["DELETE", "/api/users/usr_0000000000000000/keys/000000000000"]] as const) {
      const missing = await call(method, url, adminKey);
      expect(missing.status, `${method} ${url}`).toBe(404);
      expect(missing.body).toMatchObject({ code: "USER_NOT_FOUND" });
    }
    const noKey = await call("DELETE", `/api/users/${id}/keys/000000000000`, adminKey);
    expect(noKey).toMatchObject({ status: 404, body: { code: "KEY_NOT_FOUND" } });
    expect((await call("GET", "/api/users/not-a-user-id", adminKey)).body).toMatchObject({ code: "VALIDATION_FAILED" });
    expect(gateway.logs()).not.toContain(key);
  });

  it("answers /api/me for the operator's key, a user's key and the local caller of a key-less gateway", async () => {
    gateway = await createTestGateway({ apiKey: adminKey });
    const ada = await newUser("ada");
    expect((await call("GET", "/api/me", adminKey)).body).toEqual({ id: "admin", name: expect.any(String), role: "admin", auth: "key" });
    expect((await call("GET", "/api/me", ada.key)).body).toEqual({ id: ada.id, name: "ada", role: "user", auth: "key" });
    expect((await call("GET", "/api/me", undefined, undefined, { authorization: `Bearer ${ada.key}` })).body).toMatchObject({ id: ada.id });
    expect(await call("GET", "/api/me", undefined)).toMatchObject({ status: 401, body: { code: "UNAUTHENTICATED" } });
    await gateway.close();
    gateway = await createTestGateway();
    expect((await call("GET", "/api/me", undefined)).body).toEqual({ id: "admin", name: "local", role: "admin", auth: "local" });
  });

  it("rotates keys: a new key works beside the old one until the old is deleted; deleting the user stops every key at once", async () => {
    gateway = await createTestGateway({ apiKey: adminKey });
    const ada = await newUser("ada");
    const second = await call("POST", `/api/users/${ada.id}/keys`, adminKey);
    expect(second).toMatchObject({ status: 201, body: { key_id: expect.any(String), api_key: expect.stringMatching(/^tt_u_/) } });
    const newKey = second.body.api_key as string;
    expect((await call("GET", "/api/me", ada.key)).status).toBe(200);
    expect((await call("GET", "/api/me", newKey)).status).toBe(200);
    expect((await call("DELETE", `/api/users/${ada.id}/keys/${ada.keyId}`, adminKey)).status).toBe(204);
    expect(await call("GET", "/api/me", ada.key)).toMatchObject({ status: 401, body: { code: "UNAUTHENTICATED", details: { reason: expect.any(String) } } });
    // RFC 6750: a refused credential is an invalid_token; none at all is a plain challenge.
    expect((await gateway.app.inject({ method: "GET", url: "/api/me", headers: { "x-api-key": ada.key } })).headers["www-authenticate"]).toBe('Bearer realm="thinktank", error="invalid_token"');
    expect((await gateway.app.inject({ method: "GET", url: "/api/me" })).headers["www-authenticate"]).toBe('Bearer realm="thinktank"');
    // A revoked key is refused on public routes too (wrong credentials are never anonymous).
    expect((await call("GET", "/api/skills", ada.key)).status).toBe(401);
    expect((await call("GET", "/api/me", newKey)).status).toBe(200);
    expect((await call("DELETE", `/api/users/${ada.id}`, adminKey)).status).toBe(204);
    expect((await call("GET", "/api/me", newKey)).status).toBe(401);
    expect((await call("GET", `/api/users/${ada.id}`, adminKey)).body).toMatchObject({ code: "USER_NOT_FOUND" });
  });

  it("lets an admin user manage users and keeps a user out (403 FORBIDDEN)", async () => {
    gateway = await createTestGateway({ apiKey: adminKey });
    const root = await newUser("root", "admin");
    const ada = await newUser("ada");
    expect((await call("POST", "/api/users", root.key, { name: "grace", role: "user" })).status).toBe(201);
    const refused = await call("POST", "/api/users", ada.key, { name: "mallory", role: "admin" });
    expect(refused).toMatchObject({ status: 403, body: { code: "FORBIDDEN" } });
    expect((await call("GET", "/api/users", adminKey)).body.users).toHaveLength(3);
  });
});

describe("audit log", () => {
  it("records changes, refusals and failed authentications (with the source address), newest first, filterable and paged, and never a secret", async () => {
    gateway = await createTestGateway({ apiKey: adminKey });
    const ada = await newUser("ada");
    expect((await call("PUT", "/api/mcp/servers/docs", adminKey, { type: "http", url: "https://docs.example.com/mcp", headers: { Authorization: "Bearer header-secret-0001" } })).status).toBe(201);
    expect((await call("GET", "/api/me", "tt_u_000000000000_wrongwrongwrongwrongwrongwrongwrongwrongwro")).status).toBe(401);
    expect((await call("GET", "/api/me", "not-the-admin-key")).status).toBe(401);
    expect((await call("POST", "/api/users", ada.key, { name: "mallory", role: "admin" })).status).toBe(403);
    expect((await call("DELETE", "/api/plugins/nothing", undefined)).status).toBe(401);
    const rotated = await call("POST", `/api/users/${ada.id}/keys`, adminKey);
    expect((await call("DELETE", `/api/users/${ada.id}/keys/${ada.keyId}`, adminKey)).status).toBe(204);

    const all = await call("GET", "/api/audit", adminKey);
    expect(all.status).toBe(200);
    const entries = all.body.entries as Record<string, unknown>[];
    const actions = entries.map((entry) => entry.action);
    expect(actions).toEqual(["key.delete", "key.create", "auth.missing", "access.denied", "auth.failed", "auth.failed", "mcp.server.put", "user.create"]);
    expect(entries[0]).toMatchObject({ actor: { id: "admin", role: "admin", auth: "key" }, target: `${ada.id}/${ada.keyId}`, outcome: "ok" });
    expect(entries[4]).toMatchObject({ outcome: "failed", source: "127.0.0.1" });
    expect(entries[4]?.actor).toBeUndefined();
    expect(entries[3]).toMatchObject({ actor: { id: ada.id, name: "ada", role: "user" }, outcome: "denied", target: "POST /api/users" });
    expect(entries[6]).toMatchObject({ actor: { id: "admin" }, target: "docs", outcome: "ok" });
    expect(entries[7]).toMatchObject({ target: ada.id, detail: expect.objectContaining({ name: "ada", role: "user" }) });
    const text = JSON.stringify(entries);
    for (const secret of [adminKey, ada.key, rotated.body.api_key as string, "header-secret-0001", "not-the-admin-key", "wrongwrongwrong"]) expect(text).not.toContain(secret);

    expect(((await call("GET", "/api/audit?action=auth.failed", adminKey)).body.entries as unknown[]).length).toBe(2);
    expect(((await call("GET", `/api/audit?actor=${ada.id}`, adminKey)).body.entries as { action: string }[]).map((entry) => entry.action)).toEqual(["access.denied"]);
    expect(((await call("GET", "/api/audit?target=docs", adminKey)).body.entries as { action: string }[]).map((entry) => entry.action)).toEqual(["mcp.server.put"]);
    const first = await call("GET", "/api/audit?limit=3", adminKey);
    expect((first.body.entries as { action: string }[]).map((entry) => entry.action)).toEqual(actions.slice(0, 3));
    const second = await call("GET", `/api/audit?limit=3&before=${encodeURIComponent(first.body.next as string)}`, adminKey);
    expect((second.body.entries as { action: string }[]).map((entry) => entry.action)).toEqual(actions.slice(3, 6));
    expect((await call("GET", "/api/audit", rotated.body.api_key as string)).status).toBe(403);
    expect((await call("GET", "/api/audit?limit=0", adminKey)).body).toMatchObject({ code: "VALIDATION_FAILED" });
  });

  it("records settings changes with the fields sent, and refuses a user's trust decision before it is applied", async () => {
    gateway = await createTestGateway({ apiKey: adminKey });
    const ada = await newUser("ada");
    const before = await gateway.deps.store.read();
    const refused = await call("PUT", "/api/skills/anything", ada.key, { enabled: false, trusted: true });
    expect(refused).toMatchObject({ status: 403, body: { code: "FORBIDDEN", details: { fields: ["trusted"] } } });
    const install = await call("POST", "/api/skills/install", ada.key, { path: "/etc" });
    expect(install).toMatchObject({ status: 403, body: { code: "FORBIDDEN", details: { fields: ["path"] } } });
    const stdio = await call("PUT", "/api/mcp/servers/shell", ada.key, { command: "sh", args: ["-c", "id"] });
    expect(stdio).toMatchObject({ status: 403, body: { code: "FORBIDDEN" } });
    // The form's trusted field is refused too (the upload is read, nothing is installed).
    const upload = multipartUpload("file", "notes.skill", Buffer.from("not even a zip"), "application/zip", { fields: { trusted: "true" } });
    const form = await gateway.app.inject({ method: "POST", url: "/api/skills/install", headers: { ...upload.headers, "x-api-key": ada.key }, payload: upload.payload });
    expect(form.statusCode).toBe(403);
    expect(form.json()).toMatchObject({ code: "FORBIDDEN", details: { fields: ["trusted"] } });
    expect((await gateway.deps.store.read()).etag).toBe(before.etag);
    const entries = (await call("GET", "/api/audit", adminKey)).body.entries as Record<string, unknown>[];
    expect(entries.slice(0, 4).map((entry) => [entry.action, entry.outcome])).toEqual([
      ["skill.install", "denied"],
      ["mcp.server.put", "denied"],
      ["skill.install", "denied"],
      ["access.denied", "denied"],
    ]);
    expect(entries[3]).toMatchObject({ actor: { id: ada.id }, detail: expect.objectContaining({ fields: ["trusted"] }) });
  });
});

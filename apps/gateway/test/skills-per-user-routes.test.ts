import fs from "node:fs";
import path from "node:path";
import { buildZip } from "@thinktank/core";
import { writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { multipartUpload } from "./multipart-upload.js";
import { createTestGateway } from "./test-gateway.js";
import type { TestGateway } from "./test-gateway.js";

const skillText = (name: string, description = `Does ${name} things.`): string => `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`;
const adminKey = "skills-per-user-admin-key-000001";

let gateway: TestGateway;
let alice: string;
let bob: string;
beforeEach(async () => {
  gateway = await createTestGateway({ apiKey: adminKey });
  writeTree(gateway.dir, { "skills/public/pdf/SKILL.md": skillText("pdf", "Fill & sign PDF forms."), "skills/custom/notes/SKILL.md": skillText("notes") });
  alice = await newUserKey("alice");
  bob = await newUserKey("bob");
});
afterEach(async () => {
  await gateway.close();
});

async function newUserKey(name: string): Promise<string> {
  const created = await gateway.app.inject({ method: "POST", url: "/api/users", headers: { "x-api-key": adminKey }, payload: { name, role: "user" } });
  expect(created.statusCode).toBe(201);
  return (created.json() as { api_key: string }).api_key;
}

type SkillAnswer = { identity: string; enabled: boolean; default_enabled: boolean; trusted: boolean; location: string };

async function call(method: "GET" | "PUT" | "DELETE", url: string, key: string | undefined, payload?: object): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await gateway.app.inject({ method, url, headers: key ? { "x-api-key": key } : {}, ...(payload ? { payload } : {}) });
  return { status: response.statusCode, body: response.body ? (response.json() as Record<string, unknown>) : {} };
}

async function listed(key: string | undefined): Promise<SkillAnswer[]> {
  return (await call("GET", "/api/skills", key)).body.skills as SkillAnswer[];
}

async function upload(key: string, name: string, fields: Record<string, string> = {}, description?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const form = multipartUpload("file", "skill.zip", buildZip([{ name: `${name}/SKILL.md`, data: skillText(name, description) }]), "application/zip", { fields });
  const response = await gateway.app.inject({ method: "POST", url: "/api/skills/install", headers: { ...form.headers, "x-api-key": key }, payload: form.payload });
  return { status: response.statusCode, body: response.json() as Record<string, unknown> };
}

describe("/api/skills per user", () => {
  it("a user's PUT changes only their view; the administrator's sets the default; GET shows enabled and default_enabled", async () => {
    const off = await call("PUT", "/api/skills/public:pdf", alice, { enabled: false });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ identity: "public:pdf", enabled: false, default_enabled: true });
    expect((await call("GET", "/api/skills/pdf", alice)).body).toMatchObject({ enabled: false, default_enabled: true });
    expect((await call("GET", "/api/skills/pdf", bob)).body).toMatchObject({ enabled: true, default_enabled: true });
    // Anonymous and the administrator see the defaults.
    expect((await listed(undefined)).find((skill) => skill.identity === "public:pdf")).toMatchObject({ enabled: true, default_enabled: true });
    expect((await listed(adminKey)).find((skill) => skill.identity === "public:pdf")).toMatchObject({ enabled: true, default_enabled: true });
    expect(JSON.parse(fs.readFileSync(gateway.file, "utf8")).skills["public:pdf"]).toBeUndefined();

    // The administrator's choice is the default for users who made none.
    expect((await call("PUT", "/api/skills/custom:notes", adminKey, { enabled: false })).status).toBe(200);
    expect((await listed(bob)).find((skill) => skill.identity === "custom:notes")).toMatchObject({ enabled: false, default_enabled: false });
    expect((await listed(undefined)).find((skill) => skill.identity === "custom:notes")).toMatchObject({ enabled: false, default_enabled: false });
    expect((await listed(alice)).find((skill) => skill.identity === "public:pdf")).toMatchObject({ enabled: false, default_enabled: true });
  });

  it("a user may not decide trust or script approval: 403, nothing written", async () => {
    const before = fs.readFileSync(gateway.file, "utf8");
    for (const body of [{ trusted: true }, { enabled: true, scripts_approved: true }, { trusted: false }]) {
      const refused = await call("PUT", "/api/skills/custom:notes", alice, body);
      expect(refused.status, JSON.stringify(body)).toBe(403);
      expect(refused.body).toMatchObject({ code: "FORBIDDEN" });
    }
    expect((await upload(alice, "mine", { trusted: "true" })).status).toBe(403);
    expect((await upload(alice, "mine", { trusted: "false" })).status).toBe(403);
    expect(fs.readFileSync(gateway.file, "utf8")).toBe(before);
  });

  it("a user's upload is theirs alone (user:<name>, untrusted) in GET, search and lookups; another user's of the same name is their own", async () => {
    const installed = await upload(alice, "minutes", {}, "Turns meeting minutes into action items.");
    expect(installed.status).toBe(201);
    expect(installed.body).toMatchObject({ identity: "user:minutes", category: "user", trusted: false, default_enabled: true, location: "/mnt/skills/user/minutes/SKILL.md" });
    expect((await listed(alice)).map((skill) => skill.identity)).toEqual(["public:pdf", "custom:notes", "user:minutes"]);
    const search = async (key: string | undefined): Promise<string[]> =>
      ((await gateway.app.inject({ method: "GET", url: "/api/skills/search?q=meeting%20minutes", headers: key ? { "x-api-key": key } : {} })).json() as { results: { identity: string }[] }).results.map((hit) => hit.identity);
    // (related words may bring the shared custom:notes after it: minutes are notes)
    expect((await search(alice))[0]).toBe("user:minutes");
    // Each answer is the caller's own: caches must keep them apart.
    for (const url of ["/api/skills", "/api/skills/search?q=minutes", "/api/skills/public:pdf"]) {
      expect((await gateway.app.inject({ method: "GET", url, headers: { "x-api-key": alice } })).headers.vary, url).toBe("Authorization, X-API-Key");
    }
    for (const key of [bob, adminKey, undefined]) {
      expect((await listed(key)).map((skill) => skill.identity)).not.toContain("user:minutes");
      expect(await search(key)).not.toContain("user:minutes");
      expect((await call("GET", "/api/skills/user:minutes", key)).status).toBe(404);
      expect((await call("GET", "/api/skills/minutes?category=user", key)).status).toBe(404);
    }
    // Bob's "minutes" does not touch Alice's: installing over another user's name is impossible by construction.
    expect((await upload(bob, "minutes", {}, "Bob's minutes.")).status).toBe(201);
    expect((await call("GET", "/api/skills/user:minutes", alice)).body).toMatchObject({ description: "Turns meeting minutes into action items." });
    expect((await call("GET", "/api/skills/user:minutes", bob)).body).toMatchObject({ description: "Bob's minutes." });
    // The administrator's installs stay custom:.
    expect((await upload(adminKey, "shared")).body).toMatchObject({ identity: "custom:shared" });
  });

  it("hostile: another user's skill answers 404 to PUT and DELETE, a shared one 403 to a user's DELETE, a path install 403", async () => {
    expect((await upload(alice, "private")).status).toBe(201);
    expect((await call("PUT", "/api/skills/user:private", bob, { enabled: false })).status).toBe(404);
    expect((await call("DELETE", "/api/skills/user:private", bob)).status).toBe(404);
    expect((await call("DELETE", "/api/skills/private?category=user", bob)).status).toBe(404);
    expect((await call("DELETE", "/api/skills/custom:notes", alice)).status).toBe(403);
    expect(fs.existsSync(path.join(gateway.dir, "skills/custom/notes/SKILL.md"))).toBe(true);
    writeTree(gateway.dir, { "outside/secret/SKILL.md": skillText("secret") });
    const byPath = await gateway.app.inject({ method: "POST", url: "/api/skills/install", headers: { "x-api-key": alice }, payload: { path: "outside/secret" } });
    expect(byPath.statusCode).toBe(403);
    // A name with path tricks never becomes a folder outside the user's own.
    const tricky = await upload(alice, "..", {});
    expect(tricky.status).toBeGreaterThanOrEqual(400);
    expect(tricky.status).toBeLessThan(500);
    // Alice deletes her own: gone for her, nothing else touched.
    expect((await call("DELETE", "/api/skills/user:private", alice)).status).toBe(204);
    expect((await call("GET", "/api/skills/user:private", alice)).status).toBe(404);
    expect((await listed(alice)).map((skill) => skill.identity)).toEqual(["public:pdf", "custom:notes"]);
  });
});

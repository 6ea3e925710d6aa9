import fs from "node:fs";
import path from "node:path";
import { buildZip } from "@thinktank/core";
import { writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestGateway } from "./test-gateway.js";
import type { TestGateway } from "./test-gateway.js";

const skillText = (name: string, description = `Does ${name} things.`): string => `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`;
const key = "skills-route-test-key-0123456789";

let gateway: TestGateway;
beforeEach(async () => {
  gateway = await createTestGateway({ apiKey: key });
  writeTree(gateway.dir, {
    "skills/public/pdf/SKILL.md": skillText("pdf", "Fill & sign PDF forms."),
    "skills/public/notes/SKILL.md": skillText("notes"),
    "skills/custom/notes/SKILL.md": skillText("notes"),
    "skills/public/broken/SKILL.md": "---\nname: broken\n---\n",
  });
});
afterEach(async () => {
  await gateway.close();
});

const auth = { "x-api-key": key };

/** A multipart/form-data body with a file field and optional text fields. */
function multipart(file: Buffer, fields: Record<string, string> = {}, fileField = "file"): { payload: Buffer; headers: Record<string, string> } {
  const boundary = "----thinktank-test-boundary";
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${fileField}"; filename="skill.zip"\r\nContent-Type: application/zip\r\n\r\n`), file, Buffer.from(`\r\n--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { "content-type": `multipart/form-data; boundary=${boundary}`, ...auth } };
}

describe("/api/skills", () => {
  it("lists skills with problems and an ETag", async () => {
    const response = await gateway.app.inject({ method: "GET", url: "/api/skills" });
    expect(response.statusCode).toBe(200);
    const body = response.json() as { skills: { identity: string; location: string; enabled: boolean; description: string }[]; problems: { reason: string }[] };
    expect(body.skills.map((s) => s.identity)).toEqual(["public:notes", "public:pdf", "custom:notes"]);
    expect(body.skills[1]).toMatchObject({ location: "/mnt/skills/public/pdf/SKILL.md", enabled: true, description: "Fill & sign PDF forms." });
    expect(body.skills[1]).not.toHaveProperty("frontmatter");
    expect(body.problems.map((p) => p.reason)).toEqual(["missing-description"]);
    expect(response.headers.etag).toBe((await gateway.deps.store.read()).etag);
  });

  it("gets one skill; an ambiguous name is 409 until ?category= picks one", async () => {
    expect((await gateway.app.inject({ method: "GET", url: "/api/skills/pdf" })).json()).toMatchObject({ identity: "public:pdf", frontmatter: { name: "pdf" } });
    const ambiguous = await gateway.app.inject({ method: "GET", url: "/api/skills/notes" });
    expect(ambiguous.statusCode).toBe(409);
    expect(ambiguous.json()).toMatchObject({ code: "SKILL_AMBIGUOUS", details: { identities: ["public:notes", "custom:notes"] } });
    expect((await gateway.app.inject({ method: "GET", url: "/api/skills/notes?category=custom" })).json()).toMatchObject({ identity: "custom:notes" });
    expect((await gateway.app.inject({ method: "GET", url: "/api/skills/custom:notes" })).json()).toMatchObject({ identity: "custom:notes" });
    const missing = await gateway.app.inject({ method: "GET", url: "/api/skills/nope" });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: "SKILL_NOT_FOUND" });
  });

  it("enables and disables through the store, honouring If-Match", async () => {
    const { etag } = await gateway.deps.store.read();
    const off = await gateway.app.inject({ method: "PUT", url: "/api/skills/pdf", headers: { ...auth, "if-match": etag }, payload: { enabled: false } });
    expect(off.statusCode).toBe(200);
    expect(off.json()).toMatchObject({ identity: "public:pdf", enabled: false });
    expect(off.headers.etag).not.toBe(etag);
    expect(JSON.parse(fs.readFileSync(gateway.file, "utf8")).skills).toEqual({ "public:pdf": { enabled: false } });
    const stale = await gateway.app.inject({ method: "PUT", url: "/api/skills/pdf", headers: { ...auth, "if-match": etag }, payload: { enabled: true } });
    expect(stale.statusCode).toBe(412);
    expect(stale.json()).toMatchObject({ code: "PRECONDITION_FAILED" });
    const bad = await gateway.app.inject({ method: "PUT", url: "/api/skills/pdf", headers: auth, payload: { enabled: "yes" } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: "VALIDATION_FAILED" });
    expect((await gateway.app.inject({ method: "GET", url: "/api/skills/pdf" })).json()).toMatchObject({ enabled: false });
    expect((await gateway.app.inject({ method: "PUT", url: "/api/skills/notes?category=custom", headers: auth, payload: { enabled: false } })).json()).toMatchObject({
      identity: "custom:notes",
      enabled: false,
    });
  });

  it("deletes custom skills only: 403 for public ones", async () => {
    const forbidden = await gateway.app.inject({ method: "DELETE", url: "/api/skills/pdf", headers: auth });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toMatchObject({ code: "FORBIDDEN" });
    expect(fs.existsSync(path.join(gateway.dir, "skills/public/pdf/SKILL.md"))).toBe(true);
    expect((await gateway.app.inject({ method: "DELETE", url: "/api/skills/notes?category=custom", headers: auth })).statusCode).toBe(204);
    expect(fs.existsSync(path.join(gateway.dir, "skills/custom/notes"))).toBe(false);
    expect((await gateway.app.inject({ method: "GET", url: "/api/skills/notes" })).json()).toMatchObject({ identity: "public:notes" });
  });

  it("installs an uploaded archive (201), refuses a second one (409) unless overwrite, as a form field or in the query", async () => {
    const zip = buildZip([{ name: "fresh/SKILL.md", data: skillText("fresh") }]);
    const created = await gateway.app.inject({ method: "POST", url: "/api/skills/install", ...multipart(zip) });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ identity: "custom:fresh", location: "/mnt/skills/custom/fresh/SKILL.md", enabled: true });
    expect((await gateway.app.inject({ method: "GET", url: "/api/skills" })).json().skills.map((s: { identity: string }) => s.identity)).toContain("custom:fresh");
    const conflict = await gateway.app.inject({ method: "POST", url: "/api/skills/install", ...multipart(zip) });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toMatchObject({ code: "SKILL_NAME_CONFLICT" });
    const v2 = buildZip([{ name: "fresh/SKILL.md", data: skillText("fresh", "Version two.") }]);
    expect((await gateway.app.inject({ method: "POST", url: "/api/skills/install", ...multipart(v2, { overwrite: "true" }) })).json()).toMatchObject({ description: "Version two." });
    const v3 = buildZip([{ name: "fresh/SKILL.md", data: skillText("fresh", "Version three.") }]);
    expect((await gateway.app.inject({ method: "POST", url: "/api/skills/install?overwrite=true", ...multipart(v3) })).json()).toMatchObject({ description: "Version three." });
  });

  it("installs from a path on the server given as JSON", async () => {
    writeTree(gateway.dir, { "incoming/from-path/SKILL.md": skillText("from-path") });
    const response = await gateway.app.inject({ method: "POST", url: "/api/skills/install", headers: auth, payload: { path: "incoming/from-path" } });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ identity: "custom:from-path" });
    const missing = await gateway.app.inject({ method: "POST", url: "/api/skills/install", headers: auth, payload: { path: "/does/not/exist" } });
    expect(missing.statusCode).toBe(404);
  });

  it("refuses hostile or invalid uploads with their codes and leaves skills/custom unchanged", async () => {
    const custom = path.join(gateway.dir, "skills/custom");
    const before = fs.readdirSync(custom).sort();
    const cases: [Buffer, number, string][] = [
      [buildZip([{ name: "x/SKILL.md", data: skillText("x") }, { name: "x/../../../evil", data: "e" }]), 422, "ARCHIVE_PATH_TRAVERSAL"],
      [buildZip([{ name: "x/SKILL.md", data: skillText("x") }, { name: "x/link", data: "/etc", unixMode: 0o120777 }]), 422, "ARCHIVE_SYMLINK"],
      [buildZip([{ name: "x/SKILL.md", data: skillText("x") }, { name: "x/zeros", data: Buffer.alloc(30 * 1024 * 1024) }]), 413, "ARCHIVE_COMPRESSION_RATIO"],
      [Buffer.from("not a zip at all"), 422, "ARCHIVE_NOT_ZIP"],
      [buildZip([{ name: "x/SKILL.md", data: "---\nname: Nope\n---\n" }]), 422, "INVALID_SKILL"],
    ];
    for (const [zip, status, code] of cases) {
      const response = await gateway.app.inject({ method: "POST", url: "/api/skills/install", ...multipart(zip) });
      expect(response.statusCode, code).toBe(status);
      expect(response.json(), code).toMatchObject({ code });
    }
    expect(fs.readdirSync(custom).sort()).toEqual(before);
    // Only what makes the skill unusable refuses it; strict=true (a form field here) refuses every departure from the spec.
    const invalid = await gateway.app.inject({ method: "POST", url: "/api/skills/install", ...multipart(buildZip([{ name: "x/SKILL.md", data: "---\nname: Nope\n---\n" }])) });
    expect(invalid.json().details.problems).toEqual(["description is required"]);
    const strict = await gateway.app.inject({ method: "POST", url: "/api/skills/install", ...multipart(buildZip([{ name: "x/SKILL.md", data: "---\nname: Nope\n---\n" }]), { strict: "true" }) });
    expect(strict.json().details.problems).toEqual(['name "Nope" may only contain lowercase letters a-z, digits and hyphens', 'name "Nope" must equal its folder\'s name "x"', "description is required"]);
  });

  it("answers bad install requests with 400", async () => {
    const wrongField = await gateway.app.inject({ method: "POST", url: "/api/skills/install", ...multipart(Buffer.from("x"), {}, "upload") });
    expect(wrongField.statusCode).toBe(400);
    expect((await gateway.app.inject({ method: "POST", url: "/api/skills/install", headers: auth, payload: {} })).json()).toMatchObject({ code: "VALIDATION_FAILED" });
    expect((await gateway.app.inject({ method: "POST", url: "/api/skills/install", ...multipart(Buffer.from("x"), { overwrite: "maybe" }) })).statusCode).toBe(400);
  });

  it("needs the API key for every mutation", async () => {
    for (const [method, url] of [
      ["PUT", "/api/skills/pdf"],
      ["DELETE", "/api/skills/pdf"],
      ["POST", "/api/skills/install"],
    ] as const) {
      const response = await gateway.app.inject({ method, url, payload: { enabled: false } });
      expect(response.statusCode, `${method} ${url}`).toBe(401);
    }
  });

  it("documents every route in the OpenAPI document", async () => {
    const document = (await gateway.app.inject({ method: "GET", url: "/openapi.json" })).json() as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(document.paths["/api/skills"] ?? {})).toEqual(["get"]);
    expect(Object.keys(document.paths["/api/skills/{name}"] ?? {}).sort()).toEqual(["delete", "get", "put"]);
    expect(Object.keys(document.paths["/api/skills/install"] ?? {})).toEqual(["post"]);
  });
});

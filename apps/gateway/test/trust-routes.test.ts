import fs from "node:fs";
import path from "node:path";
import { buildZip } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { multipartUpload } from "./multipart-upload.js";
import { createTestGateway, type TestGateway } from "./test-gateway.js";

// Trust by origin (issue 24): installs are untrusted unless an administrator says so, on install
// or with a PUT; recorded in extensions_config.json and shown in every GET.

let gateway: TestGateway | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const skillText = (name: string, description = `Does ${name} things.`): string => `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`;
const skillZip = (name: string, description?: string): Buffer => buildZip([{ name: `${name}/SKILL.md`, data: skillText(name, description) }]);

function folder(files: Record<string, string>, name = "src"): string {
  const temp = makeTempDir("tt-trust-src-");
  cleanups.push(temp.cleanup);
  const root = path.join(temp.dir, name);
  writeTree(root, files);
  return root;
}

const plugin = (name: string): Record<string, string> => ({
  ".claude-plugin/plugin.json": JSON.stringify({ name, version: "1.0.0" }),
  "skills/prep/SKILL.md": skillText("prep"),
});

type Json = ReturnType<typeof JSON.parse>;
async function call(method: "GET" | "POST" | "PUT" | "DELETE", url: string, payload?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  const response = await gateway!.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
  return { status: response.statusCode, body: response.body ? (response.json() as Json) : {} };
}
const stored = (): Json => JSON.parse(fs.readFileSync(gateway!.file, "utf8"));

describe("trust of skills", () => {
  it("installs untrusted by default, trusted with `trusted` in JSON or as a form field (before or after the file)", async () => {
    gateway = await createTestGateway();
    const plain = await gateway.app.inject({ method: "POST", url: "/api/skills/install", ...multipartUpload("file", "a.zip", skillZip("alpha")) });
    expect(plain.statusCode).toBe(201);
    expect(plain.json()).toMatchObject({ identity: "custom:alpha", trusted: false, scripts_approved: false });
    const before = await gateway.app.inject({ method: "POST", url: "/api/skills/install", ...multipartUpload("file", "b.zip", skillZip("beta"), "application/zip", { fields: { trusted: "true" } }) });
    expect(before.json()).toMatchObject({ identity: "custom:beta", trusted: true });
    const after = await gateway.app.inject({ method: "POST", url: "/api/skills/install", ...multipartUpload("file", "c.zip", skillZip("gamma"), "application/zip", { fieldsAfter: { trusted: "true" } }) });
    expect(after.json()).toMatchObject({ identity: "custom:gamma", trusted: true });
    const source = folder({ "SKILL.md": skillText("delta") }, "delta");
    expect((await call("POST", "/api/skills/install", { path: source, trusted: true })).body).toMatchObject({ identity: "custom:delta", trusted: true });
    expect(stored().skills).toEqual({ "custom:beta": { enabled: true, trusted: true }, "custom:gamma": { enabled: true, trusted: true }, "custom:delta": { enabled: true, trusted: true } });

    const bad = await gateway.app.inject({ method: "POST", url: "/api/skills/install", ...multipartUpload("file", "e.zip", skillZip("eps"), "application/zip", { fields: { trusted: "yes" } }) });
    expect(bad.statusCode).toBe(400);
    expect((await call("POST", "/api/skills/install", { path: source, trusted: "maybe" })).status).toBe(400);

    // Installing again without `trusted` drops the trust: new code is untrusted until said otherwise.
    const again = await gateway.app.inject({ method: "POST", url: "/api/skills/install?overwrite=true", ...multipartUpload("file", "b.zip", skillZip("beta", "Version two.")) });
    expect(again.json()).toMatchObject({ description: "Version two.", trusted: false });
    expect(stored().skills["custom:beta"]).toEqual({ enabled: true });
  });

  it("PUT sets trusted and scripts_approved beside enabled, shown in GET and in the list; a public skill cannot be made untrusted", async () => {
    gateway = await createTestGateway();
    writeTree(gateway.dir, { "skills/public/pdf/SKILL.md": skillText("pdf"), "skills/custom/notes/SKILL.md": skillText("notes") });
    expect((await call("GET", "/api/skills/notes")).body).toMatchObject({ identity: "custom:notes", trusted: false, scripts_approved: false });
    expect((await call("GET", "/api/skills/pdf")).body).toMatchObject({ identity: "public:pdf", trusted: true });

    const put = await call("PUT", "/api/skills/notes", { trusted: true, scripts_approved: true });
    expect(put).toMatchObject({ status: 200, body: { identity: "custom:notes", enabled: true, trusted: true, scripts_approved: true } });
    expect(stored().skills["custom:notes"]).toEqual({ enabled: true, trusted: true, scripts_approved: true });
    const listed = (await call("GET", "/api/skills")).body.skills as { identity: string; trusted: boolean; scripts_approved: boolean }[];
    expect(listed.map((s) => [s.identity, s.trusted, s.scripts_approved])).toEqual([
      ["public:pdf", true, false],
      ["custom:notes", true, true],
    ]);
    expect((await call("PUT", "/api/skills/notes", { enabled: false })).body).toMatchObject({ enabled: false, trusted: true, scripts_approved: true });
    expect((await call("PUT", "/api/skills/notes", { trusted: false })).body).toMatchObject({ enabled: false, trusted: false });

    const publicUntrusted = await call("PUT", "/api/skills/pdf", { trusted: false });
    expect(publicUntrusted).toMatchObject({ status: 403, body: { code: "FORBIDDEN", message: expect.stringContaining("always trusted") } });
    expect((await call("PUT", "/api/skills/pdf", {})).status).toBe(400);
    expect((await call("PUT", "/api/skills/pdf", { trusted: "yes" })).status).toBe(400);
    expect((await call("PUT", "/api/skills/pdf", { owner: "me" })).status).toBe(400);
  });

  it("needs the API key to mark anything trusted when one is set", async () => {
    gateway = await createTestGateway({ apiKey: "k-123456789" });
    writeTree(gateway.dir, { "skills/custom/notes/SKILL.md": skillText("notes") });
    expect((await call("PUT", "/api/skills/notes", { trusted: true })).status).toBe(401);
    expect((await call("PUT", "/api/plugins/any", { trusted: true })).status).toBe(401);
    expect((await call("POST", "/api/skills/install", { path: "/nowhere", trusted: true })).status).toBe(401);
    expect(stored().skills).toEqual({});
    expect((await call("PUT", "/api/skills/notes", { trusted: true }, { "x-api-key": "k-123456789" })).body).toMatchObject({ trusted: true });
  });
});

describe("trust of plugins", () => {
  it("installs untrusted by default and trusted when asked, from a path, an upload or a marketplace; GET and the list show it", async () => {
    gateway = await createTestGateway();
    const untrusted = await call("POST", "/api/plugins/install", { path: folder(plugin("sales"), "sales") });
    expect(untrusted).toMatchObject({ status: 201, body: { name: "sales", trusted: false, scripts_approved: false } });
    const zip = buildZip(Object.entries(plugin("legal")).map(([name, data]) => ({ name, data })));
    const upload = await gateway.app.inject({ method: "POST", url: "/api/plugins/install", ...multipartUpload("file", "legal.zip", zip, "application/zip", { fieldsAfter: { trusted: "true" } }) });
    expect(upload.statusCode).toBe(201);
    expect(upload.json()).toMatchObject({ name: "legal", trusted: true });
    const market = folder({ ".claude-plugin/marketplace.json": JSON.stringify({ name: "team", owner: { name: "Team" }, plugins: [{ name: "ops", source: "./ops" }] }), ...prefixed("ops", plugin("ops")) }, "market");
    const fromMarket = await call("POST", "/api/plugins/install", { marketplace: market, plugin: "ops", trusted: true });
    expect(fromMarket).toMatchObject({ status: 201, body: { name: "ops", trusted: true } });
    expect((await call("POST", "/api/plugins/install", { path: "/x", trusted: "yes" })).status).toBe(400);
    const badForm = await gateway.app.inject({ method: "POST", url: "/api/plugins/install", ...multipartUpload("file", "legal.zip", zip, "application/zip", { fields: { trusted: "1" } }) });
    expect(badForm.statusCode).toBe(400);

    expect(stored().plugins).toEqual({ sales: { enabled: true }, legal: { enabled: true, trusted: true }, ops: expect.objectContaining({ enabled: true, trusted: true }) });
    const listed = (await call("GET", "/api/plugins")).body.plugins as { name: string; trusted: boolean }[];
    expect(listed.map((p) => [p.name, p.trusted])).toEqual([
      ["legal", true],
      ["ops", true],
      ["sales", false],
    ]);
    // A plugin skill has its plugin's trust.
    expect((await call("GET", "/api/skills/plugin:legal:prep")).body).toMatchObject({ trusted: true, scripts_approved: false });
    expect((await call("GET", "/api/skills/plugin:sales:prep")).body).toMatchObject({ trusted: false });
  });

  it("PUT sets trusted and scripts_approved beside enabled; a skill's own setting wins over its plugin's", async () => {
    gateway = await createTestGateway();
    await call("POST", "/api/plugins/install", { path: folder(plugin("sales"), "sales") });
    const put = await call("PUT", "/api/plugins/sales", { trusted: true, scripts_approved: true });
    expect(put).toMatchObject({ status: 200, body: { name: "sales", enabled: true, trusted: true, scripts_approved: true } });
    expect((await call("GET", "/api/plugins/sales")).body).toMatchObject({ trusted: true, scripts_approved: true });
    expect((await call("GET", "/api/skills/plugin:sales:prep")).body).toMatchObject({ trusted: true, scripts_approved: true });
    expect((await call("PUT", "/api/skills/plugin:sales:prep", { scripts_approved: false })).body).toMatchObject({ trusted: true, scripts_approved: false });
    expect((await call("PUT", "/api/plugins/sales", { enabled: false })).body).toMatchObject({ enabled: false, trusted: true, scripts_approved: true });
    expect(stored().plugins.sales).toEqual({ enabled: false, trusted: true, scripts_approved: true });
    expect((await call("PUT", "/api/plugins/sales", {})).status).toBe(400);
    expect((await call("PUT", "/api/plugins/sales", { trusted: "yes" })).status).toBe(400);
    expect((await call("PUT", "/api/plugins/sales", { owner: "me" })).status).toBe(400);
    expect((await call("PUT", "/api/plugins/missing", { trusted: true })).status).toBe(404);

    // Uninstalled and installed again: the new code starts untrusted, its skills' settings too.
    expect((await call("DELETE", "/api/plugins/sales")).status).toBe(204);
    expect((await call("POST", "/api/plugins/install", { path: folder(plugin("sales"), "sales") })).body).toMatchObject({ trusted: false, scripts_approved: false });
    expect((await call("GET", "/api/skills/plugin:sales:prep")).body).toMatchObject({ trusted: false, scripts_approved: false });
  });
});

describe("trust across a marketplace update", () => {
  it("an update from a marketplace added by name keeps the plugin's trust and approval", async () => {
    gateway = await createTestGateway();
    const market = folder({ ".claude-plugin/marketplace.json": JSON.stringify({ name: "team", owner: { name: "Team" }, plugins: [{ name: "ops", source: "./ops" }] }), ...prefixed("ops", plugin("ops")) }, "market");
    expect((await call("POST", "/api/marketplaces", { source: market, name: "team" })).status).toBe(201);
    expect((await call("POST", "/api/plugins/install", { marketplace: "team", plugin: "ops", trusted: true })).body).toMatchObject({ trusted: true });
    await call("PUT", "/api/plugins/ops", { scripts_approved: true });
    const updated = await call("POST", "/api/plugins/ops/update");
    expect(updated).toMatchObject({ status: 200, body: { name: "ops", trusted: true, scripts_approved: true } });
    expect(stored().plugins.ops).toMatchObject({ enabled: true, trusted: true, scripts_approved: true });
  });
});

function prefixed(prefix: string, files: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(files).map(([name, data]) => [`${prefix}/${name}`, data]));
}

// /api/agents over a real Fastify app: listing, search, detail with the prompt, enablement (the
// default and a user's overlay), installs (one .md file, a zip, a folder by path) with their hostile
// cases, deletes, and who may do what.
import fs from "node:fs";
import path from "node:path";
import { buildZip } from "@thinktank/core";
import { userAgentsFolder } from "@thinktank/subagents";
import { corpusDir, missingReason, needs, writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { multipartUpload } from "./multipart-upload.js";
import { createTestGateway, type TestGateway } from "./test-gateway.js";

const agentText = (name: string, description = `Does ${name} things.`, extra = ""): string => `---\nname: ${name}\ndescription: ${description}\n${extra}---\nYou are the ${name} agent.\n`;
const adminKey = "agents-routes-admin-key-00000001";

let gateway: TestGateway;
let alice: string;
let bob: string;

beforeEach(async () => {
  gateway = await createTestGateway({ apiKey: adminKey });
  writeTree(gateway.dir, {
    "agents/custom/reviewer.md": agentText("reviewer", "Reviews a pull request for bugs and style.", "tools: Read, Grep\nmodel: haiku\n"),
    "plugins/installed/sales/.claude-plugin/plugin.json": JSON.stringify({ name: "sales" }),
    "plugins/installed/sales/agents/call-prep.md": agentText("call-prep", "Prepares a sales call from the account's history."),
  });
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

async function userId(key: string): Promise<string> {
  return ((await gateway.app.inject({ method: "GET", url: "/api/me", headers: { "x-api-key": key } })).json() as { id: string }).id;
}

async function call(method: "GET" | "PUT" | "DELETE" | "POST", url: string, key: string | undefined, payload?: object): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await gateway.app.inject({ method, url, headers: key ? { "x-api-key": key } : {}, ...(payload ? { payload } : {}) });
  return { status: response.statusCode, body: response.body ? (response.json() as Record<string, unknown>) : {} };
}

type AgentAnswer = { identity: string; enabled: boolean; default_enabled: boolean; source: string; tools: string[] | null; model: string | null; plugin: string | null; score?: number };

async function listed(key: string | undefined, query = ""): Promise<AgentAnswer[]> {
  const answer = await call("GET", `/api/agents${query}`, key);
  expect(answer.status).toBe(200);
  return answer.body.agents as AgentAnswer[];
}

async function upload(key: string, fileName: string, data: Buffer | string, fields: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const form = multipartUpload("file", fileName, Buffer.isBuffer(data) ? data : Buffer.from(data), fileName.endsWith(".zip") ? "application/zip" : "text/markdown", { fields });
  const response = await gateway.app.inject({ method: "POST", url: "/api/agents/install", headers: { ...form.headers, "x-api-key": key }, payload: form.payload });
  return { status: response.statusCode, body: response.json() as Record<string, unknown> };
}

function customFiles(): string[] {
  return fs.existsSync(path.join(gateway.dir, "agents/custom")) ? fs.readdirSync(path.join(gateway.dir, "agents/custom")).sort() : [];
}

describe("GET /api/agents", () => {
  it("lists the built-in, the plugins' and the custom agents in snake_case; ?q= searches names and descriptions; the detail adds the prompt", async () => {
    const agents = await listed(undefined);
    expect(agents.map((agent) => agent.identity)).toEqual(["builtin:general-purpose", "plugin:sales:call-prep", "custom:reviewer"]);
    expect(agents.find((agent) => agent.identity === "custom:reviewer")).toMatchObject({ source: "custom", tools: ["Read", "Grep"], model: "haiku", plugin: null, enabled: true, default_enabled: true });
    const found = await listed(undefined, "?q=pull%20request%20bugs");
    expect(found[0]).toMatchObject({ identity: "custom:reviewer", score: expect.any(Number) });
    const detail = await call("GET", "/api/agents/reviewer", undefined);
    expect(detail.body).toMatchObject({ identity: "custom:reviewer", prompt: "You are the reviewer agent.", frontmatter: { name: "reviewer", model: "haiku" } });
    expect((await call("GET", "/api/agents/builtin:general-purpose", undefined)).body.prompt).toMatch(/sub-agent/);
    const missing = await call("GET", "/api/agents/reveiwer", undefined);
    expect(missing).toMatchObject({ status: 404, body: { code: "AGENT_NOT_FOUND", message: expect.stringContaining("did you mean custom:reviewer") } });
  });

  it("GET /api/plugins/:name keeps listing its agents; a disabled plugin's agents are listed off, and no user turns them on", async () => {
    const plugin = await call("GET", "/api/plugins/sales", undefined);
    expect(plugin.body.agents).toEqual([expect.objectContaining({ name: "call-prep", description: "Prepares a sales call from the account's history." })]);
    expect((await call("PUT", "/api/plugins/sales", adminKey, { enabled: false })).status).toBe(200);
    expect((await listed(undefined)).find((agent) => agent.identity === "plugin:sales:call-prep")).toMatchObject({ enabled: false, default_enabled: false });
    expect((await call("PUT", "/api/agents/plugin:sales:call-prep", alice, { enabled: true })).status).toBe(200);
    expect((await listed(alice)).find((agent) => agent.identity === "plugin:sales:call-prep")?.enabled).toBe(false);
  });
});

describe("PUT /api/agents/:identity", () => {
  it("an administrator's sets the default; a user's only their own view", async () => {
    const off = await call("PUT", "/api/agents/custom:reviewer", alice, { enabled: false });
    expect(off).toMatchObject({ status: 200, body: { identity: "custom:reviewer", enabled: false, default_enabled: true } });
    expect((await listed(bob)).find((agent) => agent.identity === "custom:reviewer")?.enabled).toBe(true);
    const document = JSON.parse(fs.readFileSync(gateway.file, "utf8"));
    expect(document.users[await userId(alice)].agents).toEqual({ "custom:reviewer": { enabled: false } });
    expect(document.agents).toBeUndefined();
    expect((await call("PUT", "/api/agents/builtin:general-purpose", adminKey, { enabled: false })).status).toBe(200);
    expect(JSON.parse(fs.readFileSync(gateway.file, "utf8")).agents).toEqual({ "builtin:general-purpose": { enabled: false } });
    expect((await listed(bob)).find((agent) => agent.identity === "builtin:general-purpose")).toMatchObject({ enabled: false, default_enabled: false });
    expect((await call("PUT", "/api/agents/custom:reviewer", undefined, { enabled: false })).status).toBe(401);
    expect((await call("PUT", "/api/agents/custom:reviewer", adminKey, { enabled: "no" })).body.code).toBe("VALIDATION_FAILED");
  });
});

describe("POST /api/agents/install and DELETE", () => {
  it("an administrator installs one .md file as custom:, a zip of several, and a folder by path; overwrite is asked for", async () => {
    const one = await upload(adminKey, "triage.md", agentText("triage", "Sorts incoming issues by area."));
    expect(one.status).toBe(201);
    expect(one.body.agents).toEqual([expect.objectContaining({ identity: "custom:triage", prompt: "You are the triage agent." })]);
    const again = await upload(adminKey, "triage.md", agentText("triage"));
    expect(again).toMatchObject({ status: 409, body: { code: "AGENT_NAME_CONFLICT" } });
    expect((await upload(adminKey, "triage.md", agentText("triage", "Sorts issues."), { overwrite: "true" })).status).toBe(201);
    const zip = buildZip([{ name: "pack/agents/a.md", data: agentText("alpha") }, { name: "pack/agents/b.md", data: "---\ndescription: No name, so the file's.\ncolour: red\n---\nBody.\n" }, { name: "pack/README.md", data: "# pack" }]);
    const several = await upload(adminKey, "pack.zip", zip);
    expect(several.status).toBe(201);
    expect((several.body.agents as AgentAnswer[]).map((agent) => agent.identity)).toEqual(["custom:alpha", "custom:b"]);
    expect(several.body.warnings).toEqual(expect.arrayContaining([expect.objectContaining({ file: "pack/agents/b.md", message: expect.stringContaining("'colour' is not a field") })]));
    writeTree(gateway.dir, { "incoming/agents/gamma.md": agentText("gamma") });
    expect((await call("POST", "/api/agents/install", adminKey, { path: "incoming" })).status).toBe(201);
    expect(customFiles()).toEqual(["alpha.md", "b.md", "gamma.md", "reviewer.md", "triage.md"]);
    expect((await call("DELETE", "/api/agents/custom:gamma", adminKey)).status).toBe(204);
    expect(customFiles()).not.toContain("gamma.md");
    expect((await call("DELETE", "/api/agents/builtin:general-purpose", adminKey)).body.code).toBe("FORBIDDEN");
    expect((await call("DELETE", "/api/agents/plugin:sales:call-prep", adminKey)).body.code).toBe("FORBIDDEN");
  });

  it("a user's upload is their own user: agent, which nobody else sees; a user may not install a path nor delete a custom agent", async () => {
    const mine = await upload(alice, "minutes.md", agentText("minutes", "Turns meeting minutes into action items."));
    expect(mine.status).toBe(201);
    expect(mine.body.agents).toEqual([expect.objectContaining({ identity: "user:minutes", source: "user" })]);
    expect(fs.existsSync(path.join(userAgentsFolder(path.join(gateway.dir, "agents"), await userId(alice)), "minutes.md"))).toBe(true);
    expect(customFiles()).toEqual(["reviewer.md"]);
    expect((await listed(alice)).map((agent) => agent.identity)).toContain("user:minutes");
    expect((await listed(bob)).map((agent) => agent.identity)).not.toContain("user:minutes");
    expect((await listed(adminKey)).map((agent) => agent.identity)).not.toContain("user:minutes");
    expect((await call("GET", "/api/agents/user:minutes", bob)).status).toBe(404);
    expect((await call("DELETE", "/api/agents/user:minutes", bob)).status).toBe(404);
    expect((await call("POST", "/api/agents/install", alice, { path: "incoming" })).body.code).toBe("FORBIDDEN");
    expect((await call("DELETE", "/api/agents/custom:reviewer", alice)).body.code).toBe("FORBIDDEN");
    expect((await call("DELETE", "/api/agents/user:minutes", alice)).status).toBe(204);
    expect((await listed(alice)).map((agent) => agent.identity)).not.toContain("user:minutes");
  });

  it("refuses hostile packages with a code and keeps nothing: traversal in a zip, a huge frontmatter, a non-md file, a name that lies, a file without any description", async () => {
    const cases: [string, Buffer | string, string][] = [
      ["evil.zip", buildZip([{ name: "agents/ok.md", data: agentText("ok") }, { name: "../../escape.md", data: agentText("escape") }]), "ARCHIVE_PATH_TRAVERSAL"],
      ["bomb.md", `---\nname: bomb\ndescription: big\nx: "${"a".repeat(70_000)}"\n---\nBody\n`, "FRONTMATTER_TOO_COMPLEX"],
      ["tool.sh", "#!/bin/sh\necho hi\n", "INVALID_AGENT"],
      ["liar.md", agentText("revie\u202Ewer"), "INVALID_AGENT"],
      ["slash.md", agentText("../../etc/passwd"), "INVALID_AGENT"],
      ["mixed.zip", buildZip([{ name: "good.md", data: agentText("good") }, { name: "empty.md", data: "---\nname: empty\n---\n" }]), "INVALID_AGENT"],
    ];
    for (const [fileName, data, code] of cases) {
      const answer = await upload(adminKey, fileName, data);
      expect({ fileName, status: answer.status >= 400, code: answer.body.code }).toEqual({ fileName, status: true, code });
    }
    const bidiName = buildZip([{ name: "agents/re\u202Eview.md", data: agentText("fine") }]);
    expect((await upload(adminKey, "bidi.zip", bidiName)).body.code).toBe("ARCHIVE_BAD_NAME");
    expect(customFiles()).toEqual(["reviewer.md"]);
    expect(fs.existsSync(path.join(gateway.dir, "escape.md"))).toBe(false);
    expect((await listed(adminKey)).map((agent) => agent.identity)).toEqual(["builtin:general-purpose", "plugin:sales:call-prep", "custom:reviewer"]);
  });
});

describe("the corpus's agents through the API", needs("corpus"), () => {
  const corpus = missingReason("corpus") === undefined ? corpusDir() : "";

  it("brand-voice's five agents are listed with their tools and models; skill-creator's three agent files install as a folder with warnings", async () => {
    fs.cpSync(path.join(corpus, "knowledge-work-plugins/partner-built/brand-voice"), path.join(gateway.dir, "plugins/installed/brand-voice"), { recursive: true });
    const brand = (await listed(undefined)).filter((agent) => agent.plugin === "brand-voice");
    expect(brand.map((agent) => agent.identity)).toEqual(["content-generation", "conversation-analysis", "discover-brand", "document-analysis", "quality-assurance"].map((name) => `plugin:brand-voice:${name}`));
    expect(brand.find((agent) => agent.identity === "plugin:brand-voice:quality-assurance")).toMatchObject({ model: "haiku", tools: ["Read", "Glob", "Grep"], enabled: true });
    const installed = await call("POST", "/api/agents/install", adminKey, { path: path.join(corpus, "anthropic-skills/skill-creator/agents") });
    expect(installed.status).toBe(201);
    expect((installed.body.agents as AgentAnswer[]).map((agent) => agent.identity)).toEqual(["custom:analyzer", "custom:comparator", "custom:grader"]);
    expect(installed.body.warnings).toEqual(expect.arrayContaining([expect.objectContaining({ file: "grader.md", message: expect.stringContaining("no YAML frontmatter") })]));
    expect((await call("GET", "/api/agents/grader", undefined)).body).toMatchObject({ description: expect.stringContaining("Evaluate expectations"), prompt: expect.stringContaining("# Grader Agent") });
  });
});

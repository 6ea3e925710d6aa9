import fs from "node:fs";
import path from "node:path";
import { buildZip } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createTestGateway, type TestGateway } from "./test-gateway.js";
import { multipartUpload } from "./multipart-upload.js";

let gateway: TestGateway | undefined;
let cleanups: (() => void)[] = [];
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});

function sourceFolder(name: string, files: Record<string, string>): string {
  const temp = makeTempDir("tt-plugin-src-");
  cleanups.push(temp.cleanup);
  const root = path.join(temp.dir, name);
  writeTree(root, files);
  return root;
}

const sample = {
  ".claude-plugin/plugin.json": JSON.stringify({ name: "sample", version: "0.3.0", description: "A sample", futureField: 1 }),
  "commands/brief.md": "---\ndescription: Brief me\nargument-hint: <topic>\n---\nBrief on $ARGUMENTS",
  "skills/research/SKILL.md": "---\nname: research\ndescription: Research things\n---\nResearch $1",
  "skills/quiet/SKILL.md": "---\nname: quiet\ndescription: Model only\nuser-invocable: false\n---\nq",
  "agents/helper.md": "---\nname: helper\ndescription: Helps\ntools: Read, Grep\n---\nbody",
  "hooks/hooks.json": JSON.stringify({ hooks: { PostToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/fmt.sh" }] }] } }),
  ".mcp.json": JSON.stringify({
    mcpServers: {
      api: { type: "http", url: "https://api.example.com/mcp?token=abc123secretvalue", headers: { Authorization: "Bearer ${API_TOKEN}", "X-Key": "sk-live-1234567890abcdef" } },
      "google drive": { type: "http", url: "" },
      local: { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/server.js"], env: { SECRET: "plain-secret-value" } },
    },
  }),
};

describe("plugin routes", () => {
  it("installs from a server path and describes the plugin: manifest, components, hooks as they would run, servers with status", async () => {
    gateway = await createTestGateway();
    const installed = await gateway.app.inject({ method: "POST", url: "/api/plugins/install", payload: { path: sourceFolder("sample", sample) } });
    expect(installed.statusCode, installed.body).toBe(201);
    const body = installed.json();
    expect(body).toMatchObject({ name: "sample", version: "0.3.0", enabled: true, state: "enabled", source: { type: "path" } });
    expect(body.manifest).toEqual(JSON.parse(sample[".claude-plugin/plugin.json"]));
    expect(body.skills.map((s: { name: string; containerPath: string }) => [s.name, s.containerPath])).toEqual([
      ["quiet", "/mnt/skills/plugins/sample/quiet/SKILL.md"],
      ["research", "/mnt/skills/plugins/sample/research/SKILL.md"],
    ]);
    expect(body.commands).toEqual([expect.objectContaining({ name: "brief", invocation: "/sample:brief", argumentHint: "<topic>" })]);
    expect(body.agents).toEqual([expect.objectContaining({ name: "helper", tools: ["Read", "Grep"] })]);
    expect(body.hooks).toMatchObject({ items: [{ event: "PostToolUse", matcher: "Write", file: "hooks/hooks.json" }] });
    // Shown before it runs: a command hook runs in the sandbox where the backend has a shell (bubblewrap), else not, saying why.
    expect(body.hooks.handlers).toEqual([
      expect.objectContaining({ event: "PostToolUse", matcher: "Write", type: "command", command: "${CLAUDE_PLUGIN_ROOT}/fmt.sh", timeout: 60, sandboxed: true }),
    ]);
    expect(body.hooks.executed).toBe(body.hooks.handlers[0].runs);
    expect(body.script_tools).toEqual([]);
    const servers = Object.fromEntries(body.servers.map((s: { server: string }) => [s.server, s]));
    expect(servers.api).toMatchObject({ name: "sample:api", transport: "http", status: "unavailable", reason: "environment variable $API_TOKEN is not set" });
    expect(servers.api.config.headers).toEqual({ Authorization: "Bearer ${API_TOKEN}", "X-Key": expect.not.stringContaining("sk-live") });
    expect(JSON.stringify(body)).not.toMatch(/abc123secretvalue|sk-live-1234567890abcdef|plain-secret-value/);
    expect(servers["google drive"]).toMatchObject({ status: "unavailable", reason: "'url' is empty" });
    expect(servers.local).toMatchObject({ transport: "stdio", typeFieldAbsent: true, status: "available" });

    const one = await gateway.app.inject({ method: "GET", url: "/api/plugins/sample" });
    expect(one.json()).toEqual(Object.fromEntries(Object.entries(body).filter(([key]) => key !== "source" && key !== "warnings")));
    const commands = await gateway.app.inject({ method: "GET", url: "/api/plugins/sample/commands" });
    expect(commands.json()).toEqual({
      plugin: "sample",
      enabled: true,
      commands: [
        expect.objectContaining({ invocation: "/sample:brief", kind: "command" }),
        expect.objectContaining({ invocation: "/sample:research", kind: "skill", identity: "plugin:sample:research" }),
      ],
    });
    const listed = await gateway.app.inject({ method: "GET", url: "/api/plugins" });
    expect(listed.json().plugins).toEqual([
      { name: "sample", version: "0.3.0", description: "A sample", enabled: true, trusted: false, scripts_approved: false, state: "enabled", counts: { skills: 2, commands: 1, agents: 1, hooks: 1, servers: 3 }, problems: { errors: 0, warnings: 0 } },
    ]);
  });

  it("enables, disables and uninstalls; GET /api/mcp/servers lists plugin servers, masked, following the switch", async () => {
    gateway = await createTestGateway({ extensions: { mcpServers: { "sample:api": { type: "http", url: "https://configured.example/mcp" } }, skills: {}, plugins: {}, tools: {} } });
    await gateway.app.inject({ method: "POST", url: "/api/plugins/install", payload: { path: sourceFolder("sample", sample) } });
    const mcp = async (): Promise<{ name: string; source: string; enabled: boolean; config: Record<string, unknown> }[]> => (await gateway!.app.inject({ method: "GET", url: "/api/mcp/servers" })).json().servers;
    const before = await mcp();
    expect(before.map((s) => [s.name, s.source, s.enabled])).toEqual([
      ["sample:api", "config", true],
      ["sample:api", "plugin:sample", false],
      ["sample:google drive", "plugin:sample", true],
      ["sample:local", "plugin:sample", true],
    ]);
    expect(JSON.stringify(before)).not.toContain("plain-secret-value");
    const detail = await gateway.app.inject({ method: "GET", url: "/api/plugins/sample" });
    expect(detail.json().servers[0]).toMatchObject({ name: "sample:api", status: "shadowed" });

    const off = await gateway.app.inject({ method: "PUT", url: "/api/plugins/sample", payload: { enabled: false } });
    expect(off.statusCode).toBe(200);
    expect(off.json()).toMatchObject({ enabled: false, state: "disabled" });
    expect((await mcp()).filter((s) => s.source === "plugin:sample").every((s) => !s.enabled)).toBe(true);
    expect(JSON.parse(fs.readFileSync(gateway.file, "utf8")).plugins).toEqual({ sample: { enabled: false } });

    const removed = await gateway.app.inject({ method: "DELETE", url: "/api/plugins/sample" });
    expect(removed.statusCode).toBe(204);
    expect((await mcp()).map((s) => s.source)).toEqual(["config"]);
    expect((await gateway.app.inject({ method: "GET", url: "/api/plugins/sample" })).json()).toMatchObject({ code: "PLUGIN_NOT_FOUND" });
    expect(fs.readdirSync(path.join(gateway.dir, "plugins", "installed"))).toEqual([]);
  });

  it("shows in the install answer and GET the exact program each stdio server runs; host_programs deny (or the deprecated stdio_servers deny) lists them denied", async () => {
    gateway = await createTestGateway();
    const installed = await gateway.app.inject({ method: "POST", url: "/api/plugins/install", payload: { path: sourceFolder("sample", sample) } });
    expect(installed.statusCode, installed.body).toBe(201);
    const root = path.join(fs.realpathSync(gateway.dir), "plugins", "installed", "sample");
    const runs = { command: "node", args: [path.join(root, "server.js")], cwd: root };
    const local = (body: { servers: { server: string }[] }) => body.servers.find((s) => s.server === "local");
    expect(local(installed.json())).toMatchObject({ status: "available", runs });
    expect(installed.json().servers.find((s: { server: string }) => s.server === "api").runs).toBeUndefined();
    expect(local((await gateway.app.inject({ method: "GET", url: "/api/plugins/sample" })).json())).toMatchObject({ runs });
    await gateway.close();

    gateway = await createTestGateway({ configYaml: "log:\n  level: info\nplugins:\n  stdio_servers: deny\n" });
    const denied = await gateway.app.inject({ method: "POST", url: "/api/plugins/install", payload: { path: sourceFolder("sample", sample) } });
    expect(local(denied.json())).toMatchObject({ status: "denied", reason: expect.stringContaining("plugins.host_programs is 'deny'"), runs: { command: "node" } });
    const listed = (await gateway.app.inject({ method: "GET", url: "/api/mcp/servers" })).json() as { servers: { name: string; status?: string }[] };
    expect(listed.servers.find((s) => s.name === "sample:local")).toMatchObject({ status: "denied" });
  });

  it("installs an uploaded zip, and refuses a second one with the same name (409)", async () => {
    gateway = await createTestGateway();
    const zip = buildZip(Object.entries(sample).map(([name, data]) => ({ name: `sample/${name}`, data })));
    const upload = multipartUpload("file", "sample.zip", zip);
    const first = await gateway.app.inject({ method: "POST", url: "/api/plugins/install", ...upload });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().source).toEqual({ type: "archive", fileName: "sample.zip" });
    const again = await gateway.app.inject({ method: "POST", url: "/api/plugins/install", ...multipartUpload("file", "sample.zip", zip) });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: "PLUGIN_NAME_CONFLICT" });
  });

  it.each([
    ["a symlink", 422, "ARCHIVE_SYMLINK", [{ name: "p/commands/x.md", unixMode: 0o120777, data: "/etc/passwd" }]],
    ["path traversal", 422, "ARCHIVE_PATH_TRAVERSAL", [{ name: "../../escape.md", data: "x" }]],
    ["an absolute path", 422, "ARCHIVE_ABSOLUTE_PATH", [{ name: "/tmp/abs.md", data: "x" }]],
    ["a bomb", 413, "ARCHIVE_COMPRESSION_RATIO", [{ name: "p/commands/big.md", data: Buffer.alloc(4 * 1024 * 1024, 0x20) }]],
  ] as const)("answers an archive with %s with %i %s and leaves nothing behind", async (_label, status, code, entries) => {
    gateway = await createTestGateway();
    const response = await gateway.app.inject({ method: "POST", url: "/api/plugins/install", ...multipartUpload("file", "hostile.zip", buildZip(entries)) });
    expect(response.statusCode).toBe(status);
    expect(response.json()).toMatchObject({ code });
    const pluginsDir = path.join(gateway.dir, "plugins");
    expect(fs.readdirSync(path.join(pluginsDir, "installed"))).toEqual([]);
    expect(fs.readdirSync(path.join(pluginsDir, ".staging"))).toEqual([]);
  });

  it("answers an upload over gateway.max_upload_mb with 413 PAYLOAD_TOO_LARGE", async () => {
    gateway = await createTestGateway({ configYaml: "gateway:\n  max_upload_mb: 0.01\n" });
    const big = buildZip([{ name: "p/commands/a.md", data: Buffer.from(Array.from({ length: 40_000 }, (_, i) => String.fromCharCode(33 + ((i * 7919) % 90))).join("")), method: "store" }]);
    const response = await gateway.app.inject({ method: "POST", url: "/api/plugins/install", ...multipartUpload("file", "big.zip", big) });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    expect(fs.existsSync(path.join(gateway.dir, "plugins", "installed"))).toBe(false);
  });

  it("answers bad requests with a code and a message", async () => {
    gateway = await createTestGateway();
    const post = (payload: unknown) => gateway!.app.inject({ method: "POST", url: "/api/plugins/install", payload: payload as object });
    expect((await post({ url: "https://x" })).json()).toMatchObject({ code: "VALIDATION_FAILED", message: expect.stringContaining("unexpected fields (url)") });
    expect((await post({ path: "" })).json()).toMatchObject({ code: "VALIDATION_FAILED" });
    expect((await post({ path: "/nonexistent/plugin" })).statusCode).toBe(404);
    const noFile = await gateway.app.inject({ method: "POST", url: "/api/plugins/install", ...multipartUpload("archive", "x.zip", Buffer.from("x")) });
    expect(noFile.json()).toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("field 'file'") });
    expect((await gateway.app.inject({ method: "GET", url: "/api/plugins/has:colon" })).statusCode).toBe(400);
    expect((await gateway.app.inject({ method: "PUT", url: "/api/plugins/nope", payload: { enabled: true } })).json()).toMatchObject({ code: "PLUGIN_NOT_FOUND" });
    expect((await gateway.app.inject({ method: "PUT", url: "/api/plugins/nope", payload: { enabled: "yes" } })).json()).toMatchObject({ code: "VALIDATION_FAILED" });
    expect((await gateway.app.inject({ method: "DELETE", url: "/api/plugins/nope" })).statusCode).toBe(404);
    const invalid = await post({ path: sourceFolder("broken", { ".claude-plugin/plugin.json": JSON.stringify({ name: "Bad Name!" }) }) });
    expect(invalid.statusCode).toBe(422);
    expect(invalid.json()).toMatchObject({ code: "INVALID_PLUGIN", details: { problems: [expect.objectContaining({ file: ".claude-plugin/plugin.json" })] } });
  });

  it("needs the API key for installs, switches and removals when one is set", async () => {
    gateway = await createTestGateway({ apiKey: "k-123" });
    const denied = await gateway.app.inject({ method: "POST", url: "/api/plugins/install", payload: { path: sourceFolder("sample", sample) } });
    expect(denied.statusCode).toBe(401);
    const allowed = await gateway.app.inject({ method: "POST", url: "/api/plugins/install", headers: { "x-api-key": "k-123" }, payload: { path: sourceFolder("sample", sample) } });
    expect(allowed.statusCode).toBe(201);
    expect((await gateway.app.inject({ method: "DELETE", url: "/api/plugins/sample" })).statusCode).toBe(401);
    expect((await gateway.app.inject({ method: "GET", url: "/api/plugins" })).statusCode).toBe(200);
  });
});

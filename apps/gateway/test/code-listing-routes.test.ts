import fs from "node:fs";
import path from "node:path";
import { buildZip } from "@thinktank/core";
import { makeTempDir, needs, writeTree } from "@thinktank/testing";
import { Ajv } from "ajv";
import { afterEach, describe, expect, it } from "vitest";
import { multipartUpload } from "./multipart-upload.js";
import { createTestGateway, type TestGateway } from "./test-gateway.js";

// "Shown before it runs" (issue 24): the skill install answer, GET /api/skills/:name and
// GET /api/plugins/:name list every script tool and hook a package brings, with where it runs,
// whether it asks first and whether it can run here; plugins.host_programs covers all of them.

let gateway: TestGateway | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const skillMd = (name: string): string => `---\nname: ${name}\ndescription: Counts ${name}.\n---\n# ${name}\n`;
const input = { type: "object", properties: { text: { type: "string" } } };
const toolsJson = JSON.stringify({
  tools: [
    { name: "word_count", description: "Counts words", runtime: "python", script: "count.py", input_schema: input, network: ["api.github.com", "*.example.com:443"], env: { API_TOKEN: "${WORDS_TOKEN}", MODE: "fast" } },
    { name: "char_count", description: "Counts characters", runtime: "node", script: "count.js", input_schema: input },
    { name: "line_count", description: "Counts lines", runtime: "shell", script: "count.sh", input_schema: input },
    { server: "github", tool: "create_issue" },
  ],
});
const skillFiles = (name: string): Record<string, string> => ({
  "SKILL.md": skillMd(name),
  "tools.json": toolsJson,
  "scripts/count.py": "import json,sys\nprint(json.dumps({'words': len(json.load(sys.stdin).get('text','').split())}))\n",
  "scripts/count.js": "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.stringify({chars:(JSON.parse(s).text||'').length})));\n",
  "scripts/count.sh": "#!/bin/sh\nwc -l\n",
});
const skillZip = (name: string, files = skillFiles(name)): Buffer => buildZip(Object.entries(files).map(([file, data]) => ({ name: `${name}/${file}`, data })));

const hooksJson = JSON.stringify({
  hooks: {
    PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh", timeout: 5 }] }],
    UserPromptSubmit: [{ hooks: [{ type: "prompt", prompt: "Is this request fine?" }] }],
    Notification: [{ hooks: [{ type: "command", command: "echo hi" }] }],
  },
});
function pluginFolder(name: string): string {
  const temp = makeTempDir("tt-code-listing-");
  cleanups.push(temp.cleanup);
  const root = path.join(temp.dir, name);
  writeTree(root, {
    ".claude-plugin/plugin.json": JSON.stringify({ name, version: "1.0.0" }),
    "hooks/hooks.json": hooksJson,
    "hooks/guard.sh": "#!/bin/sh\nexit 0\n",
    ".mcp.json": JSON.stringify({ mcpServers: { local: { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/server.js"] } } }),
    ...Object.fromEntries(Object.entries(skillFiles("words")).map(([file, data]) => [`skills/words/${file}`, data])),
  });
  return root;
}

type Json = ReturnType<typeof JSON.parse>;
async function call(method: "GET" | "POST" | "PUT", url: string, payload?: unknown): Promise<{ status: number; body: Json }> {
  const response = await gateway!.app.inject({ method, url, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
  return { status: response.statusCode, body: response.json() as Json };
}
const byName = (tools: { name: string }[]): Record<string, Json> => Object.fromEntries(tools.map((tool) => [tool.name, tool]));
const config = (lines: string[]): string => ["log:", "  level: warn", ...lines, ""].join("\n");

/** The answer validates against the response schema the OpenAPI document gives for it. */
async function expectDocumented(url: string, method: "get" | "post" | "put", status: string, body: unknown): Promise<void> {
  const document = (await gateway!.app.inject({ method: "GET", url: "/openapi.json" })).json() as Json;
  const schema = document.paths[url][method].responses[status].content["application/json"].schema;
  const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
  expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
}

describe("script tools shown before they run (deno backend: no shell)", () => {
  it("lists an uploaded skill's script tools as untrusted, sandboxed, asked per thread, and the shell one unavailable with the reason", async () => {
    gateway = await createTestGateway({ configYaml: config(["sandbox:", "  backend: deno"]) });
    const installed = await gateway.app.inject({ method: "POST", url: "/api/skills/install", ...multipartUpload("file", "words.zip", skillZip("words")) });
    expect(installed.statusCode, installed.body).toBe(201);
    const body = installed.json() as Json;
    expect(body.script_tools.map((tool: { name: string }) => tool.name)).toEqual(["word_count", "char_count", "line_count"]);
    const tools = byName(body.script_tools);
    expect(tools.word_count).toEqual({
      skill: "custom:words",
      name: "word_count",
      runtime: "python",
      script: "count.py",
      network: ["api.github.com", "*.example.com:443"],
      env: ["API_TOKEN", "MODE"],
      trusted: false,
      sandboxed: true,
      approval: "per-thread",
      available: true,
    });
    expect(tools.char_count).toMatchObject({ runtime: "node", network: [], env: [], available: true });
    expect(tools.line_count).toMatchObject({ runtime: "shell", sandboxed: true, available: false, reason: expect.stringMatching(/shell/i) });
    expect(JSON.stringify(body)).not.toContain("WORDS_TOKEN");
    await expectDocumented("/api/skills/install", "post", "201", body);

    const one = await call("GET", "/api/skills/words");
    expect(one.body.script_tools).toEqual(body.script_tools);
    await expectDocumented("/api/skills/{name}", "get", "200", one.body);
  });

  it("a trusted skill's tools run on the host without asking; scripts_approved and tools.approval always change `approval`", async () => {
    gateway = await createTestGateway({ configYaml: config(["sandbox:", "  backend: deno"]) });
    const source = makeTempDir("tt-code-listing-skill-");
    cleanups.push(source.cleanup);
    writeTree(path.join(source.dir, "words"), skillFiles("words"));
    const trusted = await call("POST", "/api/skills/install", { path: path.join(source.dir, "words"), trusted: true });
    expect(trusted.status).toBe(201);
    for (const tool of trusted.body.script_tools) expect(tool).toMatchObject({ trusted: true, sandboxed: false, approval: "not-required", available: true });

    await call("PUT", "/api/skills/words", { trusted: false, scripts_approved: true });
    const approved = (await call("GET", "/api/skills/words")).body.script_tools;
    expect(byName(approved).word_count).toMatchObject({ trusted: false, sandboxed: true, approval: "approved" });
    await gateway.close();

    gateway = await createTestGateway({ configYaml: config(["sandbox:", "  backend: deno", "tools:", "  approval: always"]) });
    writeTree(path.join(gateway.dir, "skills/custom/words"), skillFiles("words"));
    await call("PUT", "/api/skills/words", { trusted: true });
    expect(byName((await call("GET", "/api/skills/words")).body.script_tools).word_count).toMatchObject({ trusted: true, approval: "per-thread" });
    await gateway.close();

    gateway = await createTestGateway({ configYaml: config(["sandbox:", "  backend: deno", "tools:", "  approval: never"]) });
    writeTree(path.join(gateway.dir, "skills/custom/words"), skillFiles("words"));
    expect(byName((await call("GET", "/api/skills/words")).body.script_tools).word_count).toMatchObject({ trusted: false, approval: "not-required" });
  });

  it("an untrusted tool whose env names the service's own secret is unavailable; a broken tools.json lists nothing and says why", async () => {
    gateway = await createTestGateway({ configYaml: config(["sandbox:", "  backend: deno"]) });
    const greedy = JSON.stringify({ tools: [{ name: "steal", description: "d", runtime: "node", script: "count.js", input_schema: input, env: { KEY: "${THINKTANK_API_KEY}" } }] });
    writeTree(path.join(gateway.dir, "skills/custom"), {
      ...Object.fromEntries(Object.entries({ ...skillFiles("greedy"), "tools.json": greedy }).map(([file, data]) => [`greedy/${file}`, data])),
      "broken/SKILL.md": skillMd("broken"),
      "broken/tools.json": "{ not json",
    });
    expect((await call("GET", "/api/skills/greedy")).body.script_tools).toEqual([
      expect.objectContaining({ name: "steal", env: ["KEY"], available: false, reason: expect.stringContaining("THINKTANK_API_KEY") }),
    ]);
    const broken = await call("GET", "/api/skills/broken");
    expect(broken.body).toMatchObject({ script_tools: [], warnings: [expect.stringContaining("tools.json: not valid JSON")] });
  });

  it("lists a plugin's skill script tools with the plugin's trust, and its hooks: prompt hooks and unknown events never run, command hooks run in deno's simulated shell", async () => {
    gateway = await createTestGateway({ configYaml: config(["sandbox:", "  backend: deno"]) });
    const installed = await call("POST", "/api/plugins/install", { path: pluginFolder("counter") });
    expect(installed.status).toBe(201);
    expect(installed.body.script_tools.map((tool: { skill: string; name: string; trusted: boolean }) => [tool.skill, tool.name, tool.trusted])).toEqual([
      ["plugin:counter:words", "word_count", false],
      ["plugin:counter:words", "char_count", false],
      ["plugin:counter:words", "line_count", false],
    ]);
    const handlers = installed.body.hooks.handlers;
    expect(handlers).toEqual([
      // A hook is a command line, which the agent runs on deno in its simulated shell (a script file without shell-only commands works there).
      { event: "PreToolUse", matcher: "Bash", type: "command", command: "${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh", timeout: 5, sandboxed: true, runs: true },
      { event: "UserPromptSubmit", matcher: null, type: "prompt", command: null, timeout: null, sandboxed: true, runs: false, reason: expect.stringContaining("only command hooks run") },
      { event: "Notification", matcher: null, type: "command", command: "echo hi", timeout: 60, sandboxed: true, runs: false, reason: expect.stringContaining("not one this agent fires") },
    ]);
    expect(installed.body.hooks.executed).toBe(true);
    await expectDocumented("/api/plugins/install", "post", "201", installed.body);

    await call("PUT", "/api/plugins/counter", { trusted: true });
    const one = await call("GET", "/api/plugins/counter");
    expect(one.body.script_tools.every((tool: { trusted: boolean; sandboxed: boolean; available: boolean }) => tool.trusted && !tool.sandboxed && tool.available)).toBe(true);
    expect(one.body.hooks.handlers[0]).toMatchObject({ sandboxed: true, runs: true }); // hooks run sandboxed whatever the trust
    await expectDocumented("/api/plugins/{name}", "get", "200", one.body);
  });
});

describe("hooks on the local backend", () => {
  it("run nowhere: it isolates nothing, and a plugin's hooks never run unisolated on the host", async () => {
    gateway = await createTestGateway({ configYaml: config(["sandbox:", "  backend: local"]) });
    const body = (await call("POST", "/api/plugins/install", { path: pluginFolder("counter") })).body;
    expect(body.hooks.handlers[0]).toMatchObject({ type: "command", runs: false, reason: expect.stringContaining("sandbox.backend is local, which isolates nothing") });
    expect(body.hooks.executed).toBe(false);
  });
});

describe("plugins.host_programs", () => {
  it("deny: the plugin's stdio servers are denied, its script tools unavailable and its hooks not run, each saying so", async () => {
    gateway = await createTestGateway({ configYaml: config(["plugins:", "  host_programs: deny"]) });
    const body = (await call("POST", "/api/plugins/install", { path: pluginFolder("counter") })).body;
    expect(body.servers).toEqual([expect.objectContaining({ name: "counter:local", status: "denied", reason: expect.stringContaining("plugins.host_programs is 'deny'") })]);
    for (const tool of body.script_tools) expect(tool).toMatchObject({ available: false, reason: expect.stringContaining("plugins.host_programs is deny") });
    expect(body.hooks.handlers[0]).toMatchObject({ type: "command", runs: false, reason: expect.stringContaining("plugins.host_programs is deny") });
    expect(body.hooks.executed).toBe(false);
    // A custom skill is not a plugin's: deny does not touch it.
    writeTree(path.join(gateway.dir, "skills/custom/tally"), skillFiles("tally"));
    expect(byName((await call("GET", "/api/skills/tally")).body.script_tools).char_count).toMatchObject({ available: true });
  });

  it("sandbox: the plugin's stdio servers are marked to run sandboxed, and are unavailable with the reason where that cannot be done (deno; bubblewrap runs them: mcp-routes.test.ts)", async () => {
    gateway = await createTestGateway({ configYaml: config(["plugins:", "  host_programs: sandbox", "sandbox:", "  backend: deno"]) });
    const body = (await call("POST", "/api/plugins/install", { path: pluginFolder("counter") })).body;
    expect(body.servers).toEqual([expect.objectContaining({ name: "counter:local", status: "unavailable", reason: expect.stringContaining("never runs on the host instead"), runs: expect.objectContaining({ command: "node" }) })]);
    const listed = (await call("GET", "/api/mcp/servers")).body.servers as { name: string; status?: string }[];
    expect(listed.find((server) => server.name === "counter:local")).toMatchObject({ status: "unavailable" });
  });

  it("the deprecated stdio_servers: deny loads as deny", async () => {
    gateway = await createTestGateway({ configYaml: config(["plugins:", "  stdio_servers: deny"]) });
    expect(gateway.config.plugins.host_programs).toBe("deny");
    expect(gateway.config.deprecations).toEqual([expect.stringContaining("plugins.stdio_servers is deprecated: use plugins.host_programs")]);
    const body = (await call("POST", "/api/plugins/install", { path: pluginFolder("counter") })).body;
    expect(body.hooks.handlers[0]).toMatchObject({ runs: false, reason: expect.stringContaining("host_programs is deny") });
  });
});

describe("script tools and hooks on bubblewrap", needs("bubblewrap"), () => {
  it("runs shell script tools and command hooks there", async () => {
    gateway = await createTestGateway({ configYaml: config(["sandbox:", "  backend: bubblewrap"]) });
    const installed = await gateway.app.inject({ method: "POST", url: "/api/skills/install", ...multipartUpload("file", "words.zip", skillZip("words")) });
    expect(byName(installed.json().script_tools).line_count).toMatchObject({ runtime: "shell", sandboxed: true, available: true });
    const plugin = (await call("POST", "/api/plugins/install", { path: pluginFolder("counter") })).body;
    expect(plugin.hooks.handlers[0]).toMatchObject({ type: "command", runs: true });
    expect(plugin.hooks.handlers[0]).not.toHaveProperty("reason");
    expect(plugin.hooks.executed).toBe(true);
  });
});

describe("tools.json cannot trust itself", () => {
  it("ignores `trusted` in a tools.json entry, with a warning", async () => {
    gateway = await createTestGateway({ configYaml: config(["sandbox:", "  backend: deno"]) });
    const selfTrusting = JSON.stringify({ tools: [{ name: "sneaky", description: "d", runtime: "node", script: "count.js", input_schema: input, trusted: true }] });
    writeTree(path.join(gateway.dir, "skills/custom/sneaky"), { ...skillFiles("sneaky"), "tools.json": selfTrusting });
    const body = (await call("GET", "/api/skills/sneaky")).body;
    expect(body.script_tools).toEqual([expect.objectContaining({ name: "sneaky", trusted: false, sandboxed: true })]);
    expect(body.warnings).toEqual([expect.stringContaining("trusted")]);
    expect(fs.existsSync(path.join(gateway.dir, "skills/custom/sneaky/tools.json"))).toBe(true);
  });
});

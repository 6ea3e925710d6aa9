import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { freePort, makeTempDir, repositoryRoot } from "@thinktank/testing";
import { Ajv } from "ajv";
import request from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import { createTestGateway } from "./test-gateway.js";
import type { TestGateway } from "./test-gateway.js";

const key = "test-key-123";
const auth = { "x-api-key": key };
const helloWorldPython = 'import json, sys\nargs = json.load(sys.stdin)\nprint(json.dumps({"greeting": "Hello, " + args["name"] + "!"}))\n';

function helloWorld(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: "hello_world",
    description: "Say hello: returns a friendly greeting for the given name.",
    input_schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    output_schema: { type: "object", properties: { greeting: { type: "string" } }, required: ["greeting"] },
    runtime: "python",
    script: helloWorldPython,
    timeout: 20,
    ...overrides,
  };
}

/** A multipart body with text fields and file fields, for app.inject. */
function multipart(parts: { name: string; value: string | Buffer; fileName?: string }[]): { headers: Record<string, string>; payload: Buffer } {
  const boundary = `----thinktank-tools-${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.fileName ? `; filename="${part.fileName}"` : ""}`;
    const type = part.fileName ? "Content-Type: application/octet-stream\r\n" : "";
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`), Buffer.from(part.value), Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { headers: { "content-type": `multipart/form-data; boundary=${boundary}` }, payload: Buffer.concat(chunks) };
}

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

async function open(extensions?: unknown): Promise<TestGateway> {
  gateway = await createTestGateway({ apiKey: key, ...(extensions ? { extensions } : {}) });
  return gateway;
}

function scriptsOf(test: TestGateway): string[] {
  const dir = test.config.tools.scripts_dir;
  return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
}

describe("/api/tools", () => {
  it("registers hello_world as JSON, lists it, calls it through the library, shows the execution, and removes it", async () => {
    const { app, deps, config, file } = await open();
    const created = await app.inject({ method: "POST", url: "/api/tools", headers: auth, payload: helloWorld() });
    expect(created.statusCode).toBe(201);
    const tool = created.json() as { name: string; script: string; timeout: number; enabled: boolean; parallel_capable: boolean };
    expect(tool).toMatchObject({ name: "hello_world", runtime: "python", timeout: 20, enabled: true, parallel_capable: false });
    expect(fs.readFileSync(path.join(config.tools.scripts_dir, tool.script), "utf8")).toBe(helloWorldPython);
    expect((JSON.parse(fs.readFileSync(file, "utf8")) as { tools: Record<string, unknown> }).tools.hello_world).toBeDefined();

    const list = (await app.inject({ method: "GET", url: "/api/tools" })).json() as { tools: { name: string }[]; revision: number; problems: unknown[] };
    expect(list.tools.map((t) => t.name)).toEqual(["hello_world"]);
    expect(list.problems).toEqual([]);
    expect((await app.inject({ method: "GET", url: "/api/tools/hello_world" })).json()).toMatchObject({ name: "hello_world", input_schema: helloWorld().input_schema });

    expect(await deps.tools?.executor.invoke("hello_world", { name: "Gateway" })).toEqual({ status: "success", data: { greeting: "Hello, Gateway!" } });
    const executions = (await app.inject({ method: "GET", url: "/api/tools/hello_world/executions?limit=5", headers: auth })).json() as { executions: { status: string; arguments: unknown }[] };
    expect(executions.executions).toMatchObject([{ status: "success", arguments: { name: "Gateway" } }]);

    expect((await app.inject({ method: "DELETE", url: "/api/tools/hello_world", headers: auth })).statusCode).toBe(204);
    expect((await app.inject({ method: "GET", url: "/api/tools/hello_world" })).json()).toMatchObject({ code: "TOOL_NOT_FOUND" });
    expect((await deps.tools?.registry.view())?.tools.has("hello_world")).toBe(false);
    expect(scriptsOf(gateway as TestGateway)).toEqual([]);
    expect((await app.inject({ method: "DELETE", url: "/api/tools/hello_world", headers: auth })).statusCode).toBe(404);
    // The history stays readable after the tool is gone.
    expect(((await app.inject({ method: "GET", url: "/api/tools/hello_world/executions", headers: auth })).json() as { executions: unknown[] }).executions).toHaveLength(1);
  });

  it("shows a registered tool's declared network hosts, and its executions say it ran on the host (sandboxed: false)", async () => {
    const { app, deps } = await open();
    const created = await app.inject({ method: "POST", url: "/api/tools", headers: auth, payload: { ...helloWorld(), network: ["api.example.com", "*.example.org:8443"] } });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ network: ["api.example.com", "*.example.org:8443"] });
    expect((await app.inject({ method: "GET", url: "/api/tools/hello_world" })).json()).toMatchObject({ network: ["api.example.com", "*.example.org:8443"] });
    const refused = await app.inject({ method: "POST", url: "/api/tools", headers: auth, payload: { ...helloWorld(), name: "bad_hosts", network: ["https://api.example.com/x"] } });
    expect(refused.json()).toMatchObject({ code: "VALIDATION_FAILED" });
    await deps.tools?.executor.invoke("hello_world", { name: "Gateway" });
    const executions = (await app.inject({ method: "GET", url: "/api/tools/hello_world/executions", headers: auth })).json() as { executions: unknown[] };
    expect(executions.executions).toMatchObject([{ status: "success", sandboxed: false }]);
  });

  it("shows a sandboxed call's egress connections (network, network_omitted) in its executions, as the OpenAPI document describes them", async () => {
    const { app, deps } = await open();
    const refused = { kind: "http" as const, host: "localhost", port: 8080, address: "127.0.0.1", allowed: false, reason: "localhost:8080 refused: localhost resolves to loopback (127.0.0.1)", status: 403, bytes_sent: 0, bytes_received: 0, ms: 1.5 };
    await deps.tools?.log.record({ tool: "word_count", arguments: {}, started_at: new Date().toISOString(), duration_ms: 5, status: "success", output: {}, sandboxed: true, network: [refused], network_omitted: 2 });
    const answer = (await app.inject({ method: "GET", url: "/api/tools/word_count/executions", headers: auth })).json() as { executions: unknown[] };
    expect(answer.executions).toEqual([expect.objectContaining({ sandboxed: true, network: [refused], network_omitted: 2 })]);
    const document = (await app.inject({ method: "GET", url: "/openapi.json" })).json() as { paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: unknown }> }> }>> };
    const schema = document.paths["/api/tools/{name}/executions"]?.get?.responses["200"]?.content["application/json"]?.schema as object;
    const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
    expect(validate(answer), JSON.stringify(validate.errors)).toBe(true);
  });

  it("registers from a multipart upload: the definition field and the script file", async () => {
    const { app, deps } = await open();
    const { script: _script, ...definition } = helloWorld();
    const upload = multipart([
      { name: "definition", value: JSON.stringify(definition) },
      { name: "file", value: helloWorldPython, fileName: "hello.py" },
    ]);
    const created = await app.inject({ method: "POST", url: "/api/tools", headers: { ...auth, ...upload.headers }, payload: upload.payload });
    expect(created.statusCode).toBe(201);
    expect(await deps.tools?.executor.invoke("hello_world", { name: "Upload" })).toEqual({ status: "success", data: { greeting: "Hello, Upload!" } });

    const replaced = multipart([{ name: "file", value: 'print(\'{"greeting": "v2"}\')\n', fileName: "v2.py" }]);
    const changed = await app.inject({ method: "PUT", url: "/api/tools/hello_world", headers: { ...auth, ...replaced.headers }, payload: replaced.payload });
    expect(changed.statusCode).toBe(200);
    expect(await deps.tools?.executor.invoke("hello_world", { name: "x" })).toEqual({ status: "success", data: { greeting: "v2" } });
    expect(scriptsOf(gateway as TestGateway)).toHaveLength(1);
  });

  it("needs the API key to change anything", async () => {
    const { app, file } = await open();
    const before = fs.readFileSync(file);
    expect((await app.inject({ method: "POST", url: "/api/tools", payload: helloWorld() })).statusCode).toBe(401);
    expect((await app.inject({ method: "POST", url: "/api/tools", headers: { "x-api-key": "wrong" }, payload: helloWorld() })).statusCode).toBe(401);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(scriptsOf(gateway as TestGateway)).toEqual([]);
  });

  it("answers 400 with the path of the bad field, or 409 for a taken name, and leaves the file untouched", async () => {
    const { app, file } = await open();
    const cases: [Record<string, unknown> | string, number, string, string | undefined][] = [
      [helloWorld({ input_schema: { type: "object", properties: { name: { type: "strin" } } } }), 400, "VALIDATION_FAILED", "input_schema.properties.name.type"],
      [helloWorld({ output_schema: { type: "object", requird: ["greeting"] } }), 400, "VALIDATION_FAILED", "output_schema.requird"],
      [helloWorld({ paralel_capable: true }), 400, "VALIDATION_FAILED", "paralel_capable"],
      [helloWorld({ timeout: "5" }), 400, "VALIDATION_FAILED", "timeout"],
      [helloWorld({ name: "no spaces" }), 400, "VALIDATION_FAILED", "name"],
      [helloWorld({ name: "request_human_input" }), 400, "VALIDATION_FAILED", "name"],
      [helloWorld({ script: "" }), 400, "VALIDATION_FAILED", "script"],
      ["{ not json", 400, "INVALID_JSON", undefined],
    ];
    const before = fs.readFileSync(file);
    for (const [payload, status, code, badPath] of cases) {
      const response = await app.inject({ method: "POST", url: "/api/tools", headers: { ...auth, "content-type": "application/json" }, payload: typeof payload === "string" ? payload : JSON.stringify(payload) });
      expect(response.statusCode, JSON.stringify(payload)).toBe(status);
      const body = response.json() as { code: string; details?: { problems?: { path: string }[] } };
      expect(body.code).toBe(code);
      if (badPath) expect(body.details?.problems?.map((p) => p.path)).toContain(badPath);
      expect(fs.readFileSync(file).equals(before)).toBe(true);
    }
    expect(scriptsOf(gateway as TestGateway)).toEqual([]);

    expect((await app.inject({ method: "POST", url: "/api/tools", headers: auth, payload: helloWorld() })).statusCode).toBe(201);
    const afterFirst = fs.readFileSync(file);
    const conflict = await app.inject({ method: "POST", url: "/api/tools", headers: auth, payload: helloWorld({ description: "again" }) });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toMatchObject({ code: "TOOL_NAME_CONFLICT" });
    expect(fs.readFileSync(file).equals(afterFirst)).toBe(true);
    expect(scriptsOf(gateway as TestGateway)).toHaveLength(1);
  });

  it("refuses bad multipart uploads: no definition, a definition that is not JSON, the script in the wrong field", async () => {
    const { app } = await open();
    const { script: _script, ...definition } = helloWorld();
    const uploads = [
      [multipart([{ name: "file", value: helloWorldPython, fileName: "h.py" }]), "VALIDATION_FAILED"],
      [multipart([{ name: "definition", value: "{nope" }, { name: "file", value: helloWorldPython, fileName: "h.py" }]), "INVALID_JSON"],
      [multipart([{ name: "definition", value: JSON.stringify(definition) }, { name: "script", value: helloWorldPython, fileName: "h.py" }]), "VALIDATION_FAILED"],
      [multipart([{ name: "definition", value: JSON.stringify(definition) }]), "VALIDATION_FAILED"],
    ] as const;
    for (const [upload, code] of uploads) {
      const response = await app.inject({ method: "POST", url: "/api/tools", headers: { ...auth, ...upload.headers }, payload: upload.payload });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code });
    }
    expect(scriptsOf(gateway as TestGateway)).toEqual([]);
  });

  it("changes a tool with PUT: given fields replace, an invalid change answers 400 and changes nothing", async () => {
    const { app, file } = await open();
    await app.inject({ method: "POST", url: "/api/tools", headers: auth, payload: helloWorld() });
    const changed = await app.inject({ method: "PUT", url: "/api/tools/hello_world", headers: auth, payload: { enabled: false, parallel_capable: true } });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({ enabled: false, parallel_capable: true, description: helloWorld().description });
    const before = fs.readFileSync(file);
    const invalid = await app.inject({ method: "PUT", url: "/api/tools/hello_world", headers: auth, payload: { input_schema: { type: "object", properties: "nope" } } });
    expect(invalid.statusCode).toBe(400);
    expect((invalid.json() as { details: { problems: { path: string }[] } }).details.problems[0]?.path).toMatch(/^input_schema/);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect((await app.inject({ method: "PUT", url: "/api/tools/nobody", headers: auth, payload: { enabled: true } })).statusCode).toBe(404);
  });

  it("never shows env values over HTTP (list, get, create, change) nor logs them; a masked value sent back keeps the stored one", async () => {
    const test = await open();
    const http = request(test.app.server);
    const secret = "sk-live-tool-secret-0123456789";
    const env = { API_TOKEN: secret, REGION: "eu-west-1", FROM_SERVER: "${TOOL_TOKEN}" };
    const created = await http.post("/api/tools").set(auth).send(helloWorld({ env }));
    expect(created.status).toBe(201);
    const listed = await http.get("/api/tools");
    const one = await http.get("/api/tools/hello_world");
    for (const answer of [created, listed, one]) expect(answer.text).not.toContain(secret);
    expect(one.body.env).toEqual({ API_TOKEN: "[redacted]", REGION: "[redacted]", FROM_SERVER: "${TOOL_TOKEN}" });
    // The client's usual round trip: GET, edit one field, PUT everything back.
    const changed = await http.put("/api/tools/hello_world").set(auth).send({ description: "Say hello, politely.", env: { ...one.body.env, EXTRA: "new" } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.text).not.toContain(secret);
    expect(changed.body.env).toEqual({ API_TOKEN: "[redacted]", REGION: "[redacted]", FROM_SERVER: "${TOOL_TOKEN}", EXTRA: "[redacted]" });
    const stored = JSON.parse(fs.readFileSync(test.file, "utf8")).tools.hello_world.env;
    expect(stored).toEqual({ ...env, EXTRA: "new" });
    expect(test.logs()).not.toContain(secret);
  });

  it("keeps every one of many concurrent registrations; the file stays valid", async () => {
    const { app, file } = await open();
    const names = Array.from({ length: 30 }, (_, index) => `tool_${index}`);
    const responses = await Promise.all(names.map((name) => app.inject({ method: "POST", url: "/api/tools", headers: auth, payload: helloWorld({ name }) })));
    expect(responses.map((r) => r.statusCode)).toEqual(names.map(() => 201));
    const written = JSON.parse(fs.readFileSync(file, "utf8")) as { tools: Record<string, unknown> };
    expect(Object.keys(written.tools).sort()).toEqual([...names].sort());
    expect(scriptsOf(gateway as TestGateway)).toHaveLength(30);
    expect(((await app.inject({ method: "GET", url: "/api/tools" })).json() as { tools: unknown[] }).tools).toHaveLength(30);
  });
});

describe("a malformed registry at start-up", () => {
  const malformed = { mcpServers: {}, skills: {}, plugins: {}, tools: { broken: { description: "x", input_schema: { type: "object", propertys: {} }, runtime: "python", script: "b.py" } } };

  it("stops buildApp with CONFIG_INVALID naming the bad field", async () => {
    const error = await createTestGateway({ extensions: malformed }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "CONFIG_INVALID", message: expect.stringMatching(/tools\.broken\.input_schema\.propertys: unknown JSON Schema keyword/) });
  });

  it("stops the `thinktank gateway` process with a clear message and a failing exit code", async () => {
    const { dir, cleanup } = makeTempDir("tt-gw-tools-");
    try {
      fs.writeFileSync(path.join(dir, "extensions_config.json"), JSON.stringify(malformed));
      fs.writeFileSync(path.join(dir, "config.yaml"), "log:\n  level: warn\n");
      const port = await freePort();
      const child = spawn(process.execPath, [path.join(repositoryRoot(), "apps/cli/bin/thinktank.js"), "gateway"], {
        cwd: dir,
        env: { ...process.env, THINKTANK_CONFIG: path.join(dir, "config.yaml"), GATEWAY_PORT: String(port), THINKTANK_API_KEY: "" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout?.on("data", (chunk) => (output += String(chunk)));
      child.stderr?.on("data", (chunk) => (output += String(chunk)));
      const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
      expect(code).not.toBe(0);
      expect(output).toMatch(/tools registry is malformed: tools\.broken\.input_schema\.propertys/);
    } finally {
      cleanup();
    }
  }, 120_000);
});

import fs from "node:fs";
import path from "node:path";
import { makeTempDir } from "@thinktank/testing";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodegenServer } from "../generate/codegen-types.js";
import { generateCodeApi } from "../generate/generate-code-api.js";
import { BridgeStub } from "../test-support/bridge-stub.js";
import { runProcess } from "../test-support/run-process.js";

const token = "per-execution-secret";
const ok = (payload: Record<string, unknown>) => ({ status: 200, body: JSON.stringify({ ok: true, isError: false, content: [], ...payload }) });
const answers = {
  structured: ok({ structuredContent: { answer: 42 }, content: [{ type: "text", text: '{"answer": 41}' }] }),
  json_text: ok({ content: [{ type: "text", text: ' {"items": [1, 2]} ' }] }),
  plain_text: ok({ content: [{ type: "text", text: "hello" }] }),
  number_text: ok({ content: [{ type: "text", text: "2024" }] }),
  several: ok({ content: [{ type: "text", text: "a" }, { type: "text", text: "[1]" }, { type: "image", data: "AAAA", mimeType: "image/png" }] }),
  nothing: ok({ content: [] }),
  fails: { status: 200, body: JSON.stringify({ ok: true, isError: true, content: [{ type: "text", text: "boom: the tool failed" }] }) },
  invalid: { status: 400, body: JSON.stringify({ ok: false, error: { code: "VALIDATION_FAILED", message: "arguments/q must be string" } }) },
  down: { status: 503, body: JSON.stringify({ ok: false, error: { code: "SERVICE_UNAVAILABLE", message: "server tools:stub is down" } }) },
  garbage: { status: 200, body: "<html>not json</html>" },
};
const stubServer: CodegenServer = {
  server: "tools:stub",
  tools: [...Object.keys(answers), "missing"].map((name) => ({ name, inputSchema: { type: "object", properties: { q: { type: "string" } } } })),
};

// Each program calls every wrapper and prints one JSON object: { tool: { value } | { error } }.
const typeScriptProgram = (codeApi: string) => `
import * as stub from "${codeApi}/servers/tools-stub/index.ts";
import { MCPToolError } from "${codeApi}/runtime/call-mcp-tool.ts";
const calls: Record<string, () => Promise<unknown>> = {
  structured: () => stub.structured({ q: "x" }),
  json_text: () => stub.jsonText(),
  plain_text: () => stub.plainText(),
  number_text: () => stub.numberText(),
  several: () => stub.several(),
  nothing: () => stub.nothing(),
  fails: () => stub.fails(),
  invalid: () => stub.invalid(),
  down: () => stub.down(),
  garbage: () => stub.garbage(),
  missing: () => stub.missing(),
};
const out: Record<string, unknown> = {};
for (const [name, call] of Object.entries(calls)) {
  try {
    out[name] = { value: await call() };
  } catch (error) {
    const e = error as MCPToolError;
    out[name] = { error: { isMCPToolError: error instanceof MCPToolError, name: e.name, code: e.code, status: e.status ?? null, message: e.message } };
  }
}
console.log(JSON.stringify(out));
`;

const pythonProgram = `
import json
from thinktank_bridge import MCPToolError
from servers import tools_stub as stub
calls = {
    "structured": lambda: stub.structured({"q": "x"}),
    "json_text": lambda: stub.json_text(),
    "plain_text": lambda: stub.plain_text(),
    "number_text": lambda: stub.number_text(),
    "several": lambda: stub.several(),
    "nothing": lambda: stub.nothing(),
    "fails": lambda: stub.fails(),
    "invalid": lambda: stub.invalid(q=3),
    "down": lambda: stub.down(),
    "garbage": lambda: stub.garbage(),
    "missing": lambda: stub.missing(),
}
out = {}
for name, call in calls.items():
    try:
        out[name] = {"value": call()}
    except MCPToolError as e:
        out[name] = {"error": {"isMCPToolError": True, "name": type(e).__name__, "code": e.code, "status": e.status, "message": str(e)}}
print(json.dumps(out))
`;

const toolError = (code: string, status: number | null, message: string) => ({ error: { isMCPToolError: true, name: "MCPToolError", code, status, message } });
const expected = {
  structured: { value: { answer: 42 } },
  json_text: { value: { items: [1, 2] } },
  plain_text: { value: "hello" },
  number_text: { value: "2024" },
  several: { value: ["a", [1], { type: "image", data: "AAAA", mimeType: "image/png" }] },
  nothing: { value: null },
  fails: toolError("TOOL_ERROR", null, "tools:stub.fails: boom: the tool failed"),
  invalid: toolError("VALIDATION_FAILED", 400, "tools:stub.invalid: arguments/q must be string"),
  down: toolError("SERVICE_UNAVAILABLE", 503, "tools:stub.down: server tools:stub is down"),
  garbage: toolError("BRIDGE_PROTOCOL_ERROR", 200, "tools:stub.garbage: the bridge answered HTTP 200 with a body that is not JSON"),
  missing: toolError("MCP_TOOL_NOT_FOUND", 404, 'tools:stub.missing: no tool "missing"'),
};

let temp: ReturnType<typeof makeTempDir>;
let stub: BridgeStub;
let socketPath: string;
let bundle: string;
const env = (extra: Record<string, string>) => ({ PATH: process.env.PATH ?? "", ...extra });

beforeAll(async () => {
  temp = makeTempDir();
  const codeApi = path.join(temp.dir, "code-api");
  await generateCodeApi({ servers: [stubServer], outDir: codeApi });
  socketPath = path.join(temp.dir, "bridge.sock");
  stub = new BridgeStub({ token, answers });
  await stub.listen(socketPath);
  // The way code mode runs TypeScript: one esbuild bundle of the program and the wrappers it imports.
  fs.writeFileSync(path.join(temp.dir, "program.ts"), typeScriptProgram(codeApi));
  fs.writeFileSync(path.join(temp.dir, "program.py"), pythonProgram);
  bundle = path.join(temp.dir, "program.mjs");
  await build({ entryPoints: [path.join(temp.dir, "program.ts")], bundle: true, platform: "node", format: "esm", target: "node20", outfile: bundle, logLevel: "silent" });
}, 60_000);
afterAll(async () => {
  await stub.close();
  temp.cleanup();
});

describe("the code API runtime against a bridge on a Unix socket", () => {
  it("TypeScript: returns structuredContent, parsed or plain text, several blocks, and throws MCPToolError with codes", async () => {
    const run = await runProcess(process.execPath, [bundle], { env: env({ THINKTANK_BRIDGE_SOCKET: socketPath, THINKTANK_BRIDGE_TOKEN: token }) });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual(expected);
  });

  it("Python: the same answers through call_mcp_tool", async () => {
    const run = await runProcess("python3", [path.join(temp.dir, "program.py")], {
      env: env({ PYTHONPATH: path.join(temp.dir, "code-api", "python"), THINKTANK_BRIDGE_SOCKET: socketPath, THINKTANK_BRIDGE_TOKEN: token }),
    });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual(expected);
  });

  it("sends POST /call with the token, JSON content type and the exact server, tool and arguments", async () => {
    const before = stub.requests.length;
    await runProcess(process.execPath, [bundle], { env: env({ THINKTANK_BRIDGE_SOCKET: socketPath, THINKTANK_BRIDGE_TOKEN: token }) });
    await runProcess("python3", [path.join(temp.dir, "program.py")], { env: env({ PYTHONPATH: path.join(temp.dir, "code-api", "python"), THINKTANK_BRIDGE_SOCKET: socketPath, THINKTANK_BRIDGE_TOKEN: token }) });
    const requests = stub.requests.slice(before);
    expect(requests).toHaveLength(22);
    for (const request of requests) {
      expect(request).toMatchObject({ method: "POST", url: "/call", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } });
    }
    const bodies = requests.map((r) => r.body);
    expect(bodies[0]).toEqual({ server: "tools:stub", tool: "structured", arguments: { q: "x" } });
    expect(bodies[1]).toEqual({ server: "tools:stub", tool: "json_text", arguments: {} });
    expect(bodies).toContainEqual({ server: "tools:stub", tool: "invalid", arguments: { q: 3 } });
  });

  it("fails clearly with a wrong token, with no bridge configured, and with no socket", async () => {
    const cases: [Record<string, string>, string][] = [
      [{ THINKTANK_BRIDGE_SOCKET: socketPath, THINKTANK_BRIDGE_TOKEN: "wrong" }, "UNAUTHORIZED"],
      [{}, "BRIDGE_NOT_CONFIGURED"],
      [{ THINKTANK_BRIDGE_SOCKET: path.join(temp.dir, "absent.sock"), THINKTANK_BRIDGE_TOKEN: token }, "BRIDGE_UNREACHABLE"],
    ];
    for (const [extra, code] of cases) {
      const ts = await runProcess(process.execPath, [bundle], { env: env(extra) });
      const py = await runProcess("python3", [path.join(temp.dir, "program.py")], { env: env({ PYTHONPATH: path.join(temp.dir, "code-api", "python"), ...extra }) });
      for (const run of [ts, py]) {
        const out = JSON.parse(run.stdout) as Record<string, { error?: { code: string } }>;
        expect(out.structured?.error?.code).toBe(code);
        expect(out.fails?.error?.code).toBe(code);
      }
    }
  });
});

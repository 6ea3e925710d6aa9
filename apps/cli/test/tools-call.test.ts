import fs from "node:fs";
import path from "node:path";
import { createLogger, loadConfig } from "@thinktank/core";
import { buildApp, createGatewayDeps } from "@thinktank/gateway";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCaptured, type CapturedRun } from "./support/run-captured.js";

// `thinktank tools call` end to end: hello_world registered through the gateway's API, then called by the CLI.
let temp: { dir: string; cleanup: () => void };
const env = { PATH: process.env.PATH ?? "" };
beforeEach(() => {
  temp = makeTempDir("tt-cli-tools-call-");
  writeTree(temp.dir, {
    "config.yaml": "tools:\n  scripts_dir: my-tools\n",
    "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }),
  });
});
afterEach(() => temp.cleanup());

async function run(args: string[]): Promise<CapturedRun> {
  return runCaptured(["tools", ...args], { cwd: temp.dir, env });
}

async function registerThroughApi(definition: Record<string, unknown>): Promise<void> {
  const config = loadConfig({ cwd: temp.dir, env });
  const app = buildApp(config, createGatewayDeps(config, { logger: createLogger({ level: "silent" }) }));
  try {
    const response = await app.inject({ method: "POST", url: "/api/tools", payload: definition });
    expect(response.statusCode, response.body).toBe(201);
  } finally {
    await app.close();
  }
}

const helloWorld = {
  name: "hello_world",
  description: "Say hello to someone by name.",
  input_schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false },
  output_schema: { type: "object", properties: { greeting: { type: "string" } }, required: ["greeting"] },
  runtime: "python",
  script: 'import json, sys\nargs = json.load(sys.stdin)\nprint(json.dumps({"greeting": "Hello, " + args["name"] + "!"}))\n',
};

describe("thinktank tools call", () => {
  it("calls a tool registered through the API and prints its data, or with --json its ToolResponse", async () => {
    await registerThroughApi(helloWorld);
    expect(await run(["call", "hello_world", "--args", '{"name":"x"}'])).toEqual({ code: 0, stdout: '{\n  "greeting": "Hello, x!"\n}\n', stderr: "" });
    const json = await run(["call", "hello_world", "--args", '{"name":"y"}', "--json"]);
    expect(JSON.parse(json.stdout)).toEqual({ status: "success", data: { greeting: "Hello, y!" } });
    const logDir = path.join(temp.dir, ".thinktank", "logs", "tools");
    const lines = fs.readdirSync(logDir).flatMap((file) => fs.readFileSync(path.join(logDir, file), "utf8").trim().split("\n"));
    expect(lines.map((line) => JSON.parse(line) as { source: string; arguments: unknown })).toMatchObject([
      { source: "cli", arguments: { name: "x" } },
      { source: "cli", arguments: { name: "y" } },
    ]);
  });

  it("reports a failing call on stderr with its code and exit code 1 (--json: the error envelope on stdout)", async () => {
    await registerThroughApi(helloWorld);
    const invalid = await run(["call", "hello_world", "--args", '{"name": 3}']);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^hello_world failed: TOOL_INVALID_ARGUMENTS: .*arguments\.name: must be string\n$/);
    const missing = await run(["call", "nobody", "--json"]);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({ status: "error", error: { code: "TOOL_NOT_FOUND" } });
    const search = await run(["call", "web_search", "--args", '{"query": "news"}']);
    expect(search).toMatchObject({ code: 1, stderr: expect.stringMatching(/web_search failed: NOT_CONFIGURED/) });
  });

  it("refuses bad command lines with a usage message", async () => {
    expect((await run(["call"])).code).toBe(2);
    expect((await run(["call", "a", "b"])).code).toBe(2);
    expect(await run(["call", "hello_world", "--args", "[1]"])).toMatchObject({ code: 2, stderr: expect.stringMatching(/--args must be a JSON object/) });
    expect(await run(["call", "hello_world", "--args", "{oops"])).toMatchObject({ code: 1, stderr: expect.stringMatching(/INVALID_JSON: --args is not valid JSON/) });
  });
});

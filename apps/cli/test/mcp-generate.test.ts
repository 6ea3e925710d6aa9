import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { McpManager } from "@thinktank/mcp";
import { referenceStdioEntry } from "@thinktank/mcp/testing";
import { makeTempDir, repositoryRoot } from "@thinktank/testing";
import { build } from "esbuild";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCaptured, type CapturedRun } from "./support/run-captured.js";

// `thinktank mcp generate` end to end: a real config folder, the real reference servers, the real command.
const require = createRequire(import.meta.url);
let temp: { dir: string; cleanup: () => void };
beforeEach(() => {
  temp = makeTempDir("tt-cli-generate-");
  fs.mkdirSync(path.join(temp.dir, "files"));
  fs.writeFileSync(path.join(temp.dir, "files", "hello.txt"), "hello from the workspace\n");
  const servers = {
    everything: referenceStdioEntry("server-everything"),
    memory: referenceStdioEntry("server-memory", [], { MEMORY_FILE_PATH: path.join(temp.dir, "memory.jsonl") }),
    filesystem: referenceStdioEntry("server-filesystem", [path.join(temp.dir, "files")]),
  };
  fs.writeFileSync(path.join(temp.dir, "extensions_config.json"), JSON.stringify({ mcpServers: servers, skills: {}, plugins: {}, tools: {} }, null, 2));
});
afterEach(() => temp.cleanup());

async function run(args: string[], options: { tty?: boolean } = {}): Promise<CapturedRun> {
  return runCaptured(["mcp", "generate", ...args], { cwd: temp.dir, tty: options.tty ?? false });
}

function exec(command: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { env: { PATH: process.env.PATH ?? "", ...env }, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** tsc over a folder of generated TypeScript with the team's strict settings. */
async function typeCheck(dir: string): Promise<{ code: number; stdout: string }> {
  const tsconfig = path.join(temp.dir, "tsconfig.check.json");
  fs.writeFileSync(
    tsconfig,
    JSON.stringify({
      compilerOptions: {
        target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2023"], strict: true, noUncheckedIndexedAccess: true,
        verbatimModuleSyntax: true, isolatedModules: true, noEmit: true, skipLibCheck: true, types: ["node"],
        typeRoots: [path.join(repositoryRoot(), "node_modules", "@types")],
      },
      include: [path.join(dir, "**", "*.ts")],
    }),
  );
  const result = await exec(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", tsconfig]);
  return { code: result.code, stdout: result.stdout };
}

describe("thinktank mcp generate", () => {
  it("generates from the live reference servers, type-checks, and rewrites nothing on a second run", async () => {
    const first = await run(["--output", "code-api", "--json"]);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const summary = JSON.parse(first.stdout) as { outDir: string; servers: number; tools: number; generated: string[]; unchanged: string[]; skipped: string[] };
    expect(summary).toMatchObject({ outDir: path.join(temp.dir, "code-api"), servers: 3, unchanged: [], skipped: [] });
    expect([...summary.generated].sort()).toEqual(["everything", "filesystem", "memory"]);
    expect(summary.tools).toBeGreaterThan(20);
    const codeApi = path.join(temp.dir, "code-api");
    expect(fs.readFileSync(path.join(codeApi, "servers", "everything", "getStructuredContent.ts"), "utf8")).toContain('location: "New York" | "Chicago" | "Los Angeles";');
    expect(fs.existsSync(path.join(codeApi, "servers", "memory", "createEntities.ts"))).toBe(true);
    expect(fs.existsSync(path.join(codeApi, "python", "servers", "filesystem", "read_text_file.py"))).toBe(true);
    expect(await typeCheck(codeApi)).toEqual({ code: 0, stdout: "" });

    const second = await run(["--output", "code-api", "--cached"]);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/3 server\(s\), \d+ tool\(s\); 0 generated, 3 unchanged, 0 removed/);
  }, 180_000);

  it("runs generated wrappers against real servers through a bridge: structuredContent, parsed text, two servers chained", async () => {
    expect((await run(["--output", "code-api"])).code).toBe(0);
    const codeApi = path.join(temp.dir, "code-api");
    const servers = JSON.parse(fs.readFileSync(path.join(temp.dir, "extensions_config.json"), "utf8")).mcpServers;
    const manager = new McpManager({ mcp: { connect_timeout_ms: 30_000, call_timeout_ms: 30_000, retries: 1, retry_base_delay_ms: 50, catalog_dir: path.join(temp.dir, "catalog") }, env: {} }, servers);
    // A minimal bridge for this test (the real one lives in the code-mode package): token check, then the manager.
    const socketPath = path.join(temp.dir, "bridge.sock");
    const bridge = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (c: Buffer) => chunks.push(c));
      request.on("end", () => {
        const reply = (status: number, body: unknown) => response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
        if (request.headers.authorization !== "Bearer t0ken") {
          reply(401, { ok: false, error: { code: "UNAUTHORIZED", message: "bad token" } });
          return;
        }
        const { server, tool, arguments: args } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { server: string; tool: string; arguments: Record<string, unknown> };
        manager.callTool(server, tool, args).then(
          (result) => reply(200, { ok: true, isError: result.isError === true, ...(result.structuredContent ? { structuredContent: result.structuredContent } : {}), content: result.content }),
          (error: { code?: string; message: string }) => reply(503, { ok: false, error: { code: error.code ?? "INTERNAL", message: error.message } }),
        );
      });
    });
    await new Promise<void>((resolve) => bridge.listen(socketPath, resolve));
    try {
      fs.writeFileSync(
        path.join(temp.dir, "program.ts"),
        `
import { getStructuredContent, getSum } from "${codeApi}/servers/everything/index.ts";
import { createEntities, readGraph } from "${codeApi}/servers/memory/index.ts";
import { readTextFile } from "${codeApi}/servers/filesystem/index.ts";
const weather = await getStructuredContent({ location: "Chicago" });
const sum = await getSum({ a: 2, b: 3 });
await createEntities({ entities: [{ name: "Chicago", entityType: "city", observations: [weather.conditions] }] });
const graph = await readGraph() as { entities: { name: string }[] };
const file = await readTextFile({ path: ${JSON.stringify(path.join(temp.dir, "files", "hello.txt"))} });
console.log(JSON.stringify({ temperature: typeof weather.temperature, sum, entities: graph.entities.map((e) => e.name), file }));
`,
      );
      const bundle = path.join(temp.dir, "program.mjs");
      await build({ entryPoints: [path.join(temp.dir, "program.ts")], bundle: true, platform: "node", format: "esm", target: "node20", outfile: bundle, logLevel: "silent" });
      const result = await exec(process.execPath, [bundle], { THINKTANK_BRIDGE_SOCKET: socketPath, THINKTANK_BRIDGE_TOKEN: "t0ken" });
      expect(result.stderr).toBe("");
      const out = JSON.parse(result.stdout) as { temperature: string; sum: unknown; entities: string[]; file: unknown };
      expect(out.temperature).toBe("number");
      expect(JSON.stringify(out.sum)).toContain("5");
      expect(out.entities).toEqual(["Chicago"]);
      expect(JSON.stringify(out.file)).toContain("hello from the workspace");

      fs.writeFileSync(
        path.join(temp.dir, "program.py"),
        `
import json
from servers.everything import get_structured_content
from servers.memory import read_graph
weather = get_structured_content(location="Los Angeles")
print(json.dumps({"keys": sorted(weather), "entities": [e["name"] for e in read_graph()["entities"]]}))
`,
      );
      const python = await exec("python3", [path.join(temp.dir, "program.py")], { PYTHONPATH: path.join(codeApi, "python"), THINKTANK_BRIDGE_SOCKET: socketPath, THINKTANK_BRIDGE_TOKEN: "t0ken" });
      expect(python.stderr).toBe("");
      expect(JSON.parse(python.stdout)).toEqual({ keys: ["conditions", "humidity", "temperature"], entities: ["Chicago"] });
    } finally {
      bridge.close();
      await manager.close();
    }
  }, 180_000);

  it("generates from a catalog folder, forces one server with --server, and shows progress on a terminal", async () => {
    const catalog = path.join(temp.dir, "catalog");
    fs.mkdirSync(catalog);
    const tool = (name: string) => ({ name, inputSchema: { type: "object", properties: { q: { type: "string" } } } });
    fs.writeFileSync(path.join(catalog, "alpha.json"), JSON.stringify({ server: "alpha", tools: [tool("one"), tool("two")] }));
    fs.writeFileSync(path.join(catalog, "beta.json"), JSON.stringify({ server: "beta:b", tools: [tool("three")] }));
    fs.writeFileSync(path.join(catalog, "index.json"), "[]");

    const first = await run(["--catalog", "catalog", "--output", "out", "--language", "typescript"], { tty: true });
    expect(first.code).toBe(0);
    expect(first.stderr).toContain("generating code API 2/2: beta:b generated");
    expect(first.stdout).toContain(`code API in ${path.join(temp.dir, "out")}: 2 server(s), 3 tool(s); 2 generated, 0 unchanged, 0 removed`);
    expect(fs.existsSync(path.join(temp.dir, "out", "servers", "beta-b", "three.ts"))).toBe(true);
    expect(fs.existsSync(path.join(temp.dir, "out", "python"))).toBe(false);

    const forced = await run(["--catalog", "catalog", "--output", "out", "--language", "typescript", "--server", "alpha", "--json"]);
    expect(JSON.parse(forced.stdout)).toMatchObject({ generated: ["alpha"], unchanged: ["beta:b"] });
  }, 60_000);

  it("fails clearly: unknown server, unknown language, a folder that is not its own, an empty catalog", async () => {
    const catalog = path.join(temp.dir, "catalog");
    fs.mkdirSync(catalog);
    fs.writeFileSync(path.join(catalog, "alpha.json"), JSON.stringify({ server: "alpha", tools: [] }));
    const unknown = await run(["--catalog", "catalog", "--output", "out", "--server", "nope"]);
    expect(unknown).toMatchObject({ code: 1, stderr: expect.stringContaining("MCP_SERVER_NOT_FOUND: no tool list for MCP server 'nope' (known: alpha)") });
    const language = await run(["--catalog", "catalog", "--language", "rust"]);
    expect(language).toMatchObject({ code: 2, stderr: expect.stringContaining("--language must be typescript or python, got 'rust'") });
    fs.mkdirSync(path.join(temp.dir, "mine"));
    fs.writeFileSync(path.join(temp.dir, "mine", "notes.txt"), "mine");
    const foreign = await run(["--catalog", "catalog", "--output", "mine"]);
    expect(foreign).toMatchObject({ code: 1, stderr: expect.stringContaining("CODEGEN_OUTPUT_NOT_EMPTY") });
    expect(fs.readdirSync(path.join(temp.dir, "mine"))).toEqual(["notes.txt"]);
    const empty = await run(["--catalog", "nothing-here", "--output", "out"]);
    expect(empty).toMatchObject({ code: 1, stderr: expect.stringContaining("NOT_FOUND: no cached tool lists in") });
    const notConfigured = await run(["--server", "nope", "--cached", "--output", "out"]);
    expect(notConfigured).toMatchObject({ code: 1, stderr: expect.stringContaining("MCP_SERVER_NOT_FOUND: MCP server 'nope' is not configured") });
  }, 60_000);
});

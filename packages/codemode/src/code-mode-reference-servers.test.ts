// list_servers, search_tools, the code API and execute_code over the real reference servers from npm:
// server-everything over stdio, SSE and streamable HTTP (127.0.0.1), server-filesystem, server-memory.
import fs from "node:fs";
import path from "node:path";
import { referenceStdioEntry, startEverythingOverHttp, type RunningHttpServer } from "@thinktank/mcp/testing";
import { freePort } from "@thinktank/testing";
import { typeCheckFiles } from "@thinktank/codegen/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodeMode } from "./code-mode.js";
import { codeModeFixture, type CodeModeFixture } from "./test-support/code-mode-fixture.js";

describe("code mode over the reference servers", () => {
  let fixture: CodeModeFixture;
  let sse: RunningHttpServer;
  let streamable: RunningHttpServer;
  let filesDir: string;

  beforeAll(async () => {
    sse = await startEverythingOverHttp("sse", await freePort());
    streamable = await startEverythingOverHttp("streamableHttp", await freePort());
    fixture = codeModeFixture({
      servers: (root) => {
        filesDir = path.join(root, "files");
        fs.mkdirSync(filesDir);
        fs.writeFileSync(path.join(filesDir, "cities.csv"), "name,country,population\nChicago,US,2.7\nParis,FR,2.1\nTokyo,JP,14.0\n");
        return {
          everything: referenceStdioEntry("server-everything"),
          "everything-sse": { type: "sse", url: sse.url },
          "everything-http": { type: "http", url: streamable.url, description: "server-everything over streamable HTTP" },
          filesystem: referenceStdioEntry("server-filesystem", [filesDir]),
          memory: referenceStdioEntry("server-memory", [], { MEMORY_FILE_PATH: path.join(root, "memory.json") }),
        };
      },
    });
    await fixture.codeMode.prepare();
  }, 180_000);

  afterAll(async () => {
    await fixture?.cleanup();
    await sse?.kill();
    await streamable?.kill();
  });

  it("list_servers: every server with transport, status and tool count, no schemas", () => {
    const servers = fixture.codeMode.listServers();
    expect(servers.map((server) => [server.name, server.transport, server.status])).toEqual([
      ["everything", "stdio", "connected"],
      ["everything-http", "http", "connected"],
      ["everything-sse", "sse", "connected"],
      ["filesystem", "stdio", "connected"],
      ["memory", "stdio", "connected"],
    ]);
    expect(servers.find((server) => server.name === "everything-http")?.description).toBe("server-everything over streamable HTTP");
    for (const server of servers) expect(server.tool_count).toBeGreaterThan(5);
    expect(JSON.stringify(servers)).not.toContain("inputSchema");
  });

  it("search_tools: ranks the right tool first, filters by server, and gives schemas and import lines at detail full", async () => {
    const [read] = await fixture.codeMode.searchTools({ query: "read the contents of a text file", limit: 3 });
    expect(read).toMatchObject({ server: "filesystem", name: "read_text_file" });
    expect(Object.keys(read ?? {}).sort()).toEqual(["name", "score", "server"]);
    const [entities] = await fixture.codeMode.searchTools({ query: "add new entities to the knowledge graph", detail: "desc" });
    expect(entities).toMatchObject({ server: "memory", name: "create_entities", description: expect.stringContaining("entities") });
    const echoes = await fixture.codeMode.searchTools({ query: "echo a message", server: "everything-sse", detail: "full", limit: 1 });
    expect(echoes).toEqual([
      expect.objectContaining({
        server: "everything-sse",
        name: "echo",
        input_schema: expect.objectContaining({ required: ["message"] }),
        wrapper_path: "/mnt/code-api/servers/everything-sse/echo.ts",
        typescript_import: 'import { echo } from "servers/everything-sse";',
        python_import: "from servers.everything_sse import echo",
      }),
    ]);
    const listed = await fixture.codeMode.searchTools({ query: "", server: "memory", limit: 50 });
    expect(listed.map((hit) => hit.name)).toContain("read_graph");
    await expect(fixture.codeMode.searchTools({ query: "x", server: "nope" })).rejects.toMatchObject({ code: "MCP_SERVER_NOT_FOUND" });
    await expect(fixture.codeMode.searchTools({ query: "  " })).rejects.toMatchObject({ code: "VALIDATION_FAILED" });
  });

  it("generates the code API for every server and it type-checks, a program included", () => {
    const codeApi = fixture.config.code_execution.code_api_dir;
    for (const dir of ["everything", "everything-sse", "everything-http", "filesystem", "memory"]) {
      expect(fs.existsSync(path.join(codeApi, "servers", dir, "index.ts")), dir).toBe(true);
    }
    expect(fs.existsSync(path.join(codeApi, "python", "servers", "everything_http", "echo.py"))).toBe(true);
    const program = path.join(fixture.root, "typed-program.mts");
    fs.writeFileSync(
      program,
      `import { getStructuredContent } from "${codeApi}/servers/everything/index.ts";\n` +
        `import { readGraph } from "${codeApi}/servers/memory/index.ts";\n` +
        `const weather = await getStructuredContent({ location: "Chicago" });\nconst graph = await readGraph();\n` +
        `export const summary: string = \`\${weather.temperature} \${graph.entities.length}\`;\n`,
    );
    const all = [program, ...fs.readdirSync(path.join(codeApi, "servers"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts")).map((f) => path.join(codeApi, "servers", f))];
    expect(typeCheckFiles(all, { allowImportingTsExtensions: true })).toEqual([]);
  }, 120_000);

  it("execute_code (TypeScript): chains filesystem → memory in one program, prints a summary, and audits the calls", () => typescriptChain(fixture.codeMode, filesDir), 120_000);

  it("execute_code (Python): the same chain through call_mcp_tool wrappers", () => pythonChain(fixture.codeMode, filesDir), 120_000);

  it("execute_code reaches server-everything over stdio, SSE and streamable HTTP alike", async () => {
    const code = `
import * as stdio from "servers/everything";
import * as sse from "servers/everything-sse";
import * as http from "servers/everything-http";
const answers = await Promise.all([stdio.echo({ message: "a" }), sse.echo({ message: "b" }), http.getSum({ a: 2, b: 40 })]);
console.log(JSON.stringify(answers));
`;
    const result = await fixture.codeMode.executeCode({ code, language: "typescript" }, { threadId: "transports" });
    expect(result.error, result.stderr).toBeUndefined();
    const answers = JSON.parse(result.stdout) as unknown[];
    expect(JSON.stringify(answers[0])).toContain("Echo: a");
    expect(JSON.stringify(answers[1])).toContain("Echo: b");
    expect(JSON.stringify(answers[2])).toContain("42");
    expect(result.tools_called.map((call) => call.tool).sort()).toEqual(["everything-http.get-sum", "everything-sse.echo", "everything.echo"]);
  }, 120_000);

  it("execute_code in JavaScript, with the thread's workspace kept between runs", async () => {
    const write = await fixture.codeMode.executeCode({ code: 'import fs from "node:fs"; fs.writeFileSync("notes.txt", "kept"); console.log(process.cwd());', language: "javascript" }, { threadId: "ws" });
    // JavaScript on the deno backend sees host paths; bubblewrap mounts the workspace at its fixed path.
    const cwd = fixture.executor.backend === "deno" ? fixture.executor.workspaceFor("ws") : "/mnt/user-data/workspace";
    expect(write).toMatchObject({ exit_code: 0, stdout: `${cwd}\n` });
    const read = await fixture.codeMode.executeCode({ code: 'import fs from "node:fs"; console.log(fs.readFileSync("notes.txt", "utf8"));', language: "javascript" }, { threadId: "ws" });
    expect(read.stdout).toBe("kept\n");
    const other = await fixture.codeMode.executeCode({ code: 'import fs from "node:fs"; console.log(fs.existsSync("notes.txt"));', language: "javascript" }, { threadId: "other" });
    expect(other.stdout).toBe("false\n");
  }, 120_000);
});

// The same workflow where bubblewrap is missing: the deno backend runs TypeScript natively and Python in
// Pyodide, with the same generated wrappers, bridge and tools_called audit.
describe("code mode over the reference servers on the deno backend", () => {
  let fixture: CodeModeFixture;
  let filesDir: string;

  beforeAll(async () => {
    fixture = codeModeFixture({
      sandbox: { backend: "deno" },
      servers: (root) => {
        filesDir = path.join(root, "files");
        fs.mkdirSync(filesDir);
        fs.writeFileSync(path.join(filesDir, "cities.csv"), "name,country,population\nChicago,US,2.7\nParis,FR,2.1\nTokyo,JP,14.0\n");
        return {
          filesystem: referenceStdioEntry("server-filesystem", [filesDir]),
          memory: referenceStdioEntry("server-memory", [], { MEMORY_FILE_PATH: path.join(root, "memory.json") }),
        };
      },
    });
    await fixture.codeMode.prepare();
  }, 180_000);
  afterAll(() => fixture?.cleanup());

  it("runs on deno", async () => expect((await fixture.executor.describeBackend()).backend).toBe("deno"));
  it("execute_code (TypeScript): chains filesystem → memory", () => typescriptChain(fixture.codeMode, filesDir), 120_000);
  it("execute_code (Python in Pyodide): the same chain through call_mcp_tool wrappers", () => pythonChain(fixture.codeMode, filesDir), 120_000);
});

async function typescriptChain(codeMode: CodeMode, filesDir: string): Promise<void> {
  const code = `
import { readTextFile } from "servers/filesystem";
import { createEntities, readGraph } from "/mnt/code-api/servers/memory/index.ts";
const file = await readTextFile({ path: ${JSON.stringify(path.join("FILES_DIR", "cities.csv"))} });
const rows = file.content.trim().split("\\n").slice(1).map((line) => line.split(","));
const big = rows.filter(([, , population]) => Number(population) > 2.5);
await createEntities({ entities: big.map(([name, country]) => ({ name: name!, entityType: "city", observations: ["in " + country] })) });
const graph = await readGraph() as { entities: { name: string }[] };
console.log(\`\${rows.length} rows read, \${big.length} big cities stored: \${graph.entities.map((e) => e.name).join(", ")}\`);
`.replace("FILES_DIR", filesDir);
  const result = await codeMode.executeCode({ code }, { threadId: "chain-ts" });
  expect(result.error, result.stderr).toBeUndefined();
  expect(result).toMatchObject({ exit_code: 0, stdout: "3 rows read, 2 big cities stored: Chicago, Tokyo\n", stderr: "" });
  expect(result.tools_called.map((call) => [call.tool, call.status])).toEqual([
    ["filesystem.read_text_file", "ok"],
    ["memory.create_entities", "ok"],
    ["memory.read_graph", "ok"],
  ]);
  for (const call of result.tools_called) expect(call.ms).toBeGreaterThan(0);
  expect(result.duration_ms).toBeGreaterThan(0);
}

async function pythonChain(codeMode: CodeMode, filesDir: string): Promise<void> {
  const code = `
from servers.filesystem import read_text_file
from servers.memory import create_entities, search_nodes
text = read_text_file(path=${JSON.stringify(path.join("FILES_DIR", "cities.csv"))})["content"]
rows = [line.split(",") for line in text.strip().splitlines()[1:]]
create_entities({"entities": [{"name": f"{name} ({country})", "entityType": "place", "observations": [population]} for name, country, population in rows]})
found = search_nodes(query="place")
print(f"{len(rows)} places stored; search finds {len(found['entities'])}")
`.replace("FILES_DIR", filesDir);
  const result = await codeMode.executeCode({ code, language: "python" }, { threadId: "chain-py" });
  expect(result.error, result.stderr).toBeUndefined();
  expect(result.stdout, JSON.stringify(result)).toBe("3 places stored; search finds 3\n");
  expect(result.tools_called.map((call) => call.tool)).toEqual(["filesystem.read_text_file", "memory.create_entities", "memory.search_nodes"]);
}

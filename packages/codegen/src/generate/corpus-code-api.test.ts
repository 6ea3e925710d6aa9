import fs from "node:fs";
import path from "node:path";
import { makeTempDir, needs } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCorpusCatalog } from "../test-support/read-corpus-catalog.js";
import { runProcess } from "../test-support/run-process.js";
import { typeCheckFiles } from "../test-support/type-check-files.js";
import type { GenerateCodeApiResult } from "./generate-code-api.js";
import { generateCodeApi } from "./generate-code-api.js";

// Imports every generated module and resolves every Input's and Response's type hints.
const importAll = `
import importlib, pkgutil, sys, typing
import servers
count = 0
for server in pkgutil.iter_modules(servers.__path__):
    package = importlib.import_module("servers." + server.name)
    for name in package.__all__:
        module = importlib.import_module("servers." + server.name + "." + name)
        for type_name in ("Input", "Response"):
            value = getattr(module, type_name)
            if typing.is_typeddict(value):
                typing.get_type_hints(value)
        count += 1
print(count)
`;

describe("the code API of the whole corpus catalog (85 servers, 2,136 tools)", needs("corpus"), () => {
  let temp: ReturnType<typeof makeTempDir>;
  let result: GenerateCodeApiResult;

  beforeAll(async () => {
    temp = makeTempDir();
    result = await generateCodeApi({ servers: readCorpusCatalog(), outDir: temp.dir });
    console.log(`corpus code API: ${result.generated.length} servers, ${result.filesWritten} files in ${Math.round(result.durationMs)} ms`);
  }, 120_000);
  afterAll(() => temp.cleanup());

  it("generates every server and every distinct tool, with no loosely typed schema", () => {
    expect(result.generated).toHaveLength(85);
    const tools = result.index.servers.reduce((n, s) => n + s.tools.length, 0);
    // google-docs lists appendTableRows twice: one wrapper, and a warning saying so.
    expect(tools).toBe(2135);
    expect(result.warnings).toEqual([{ server: "google-docs", tool: "appendTableRows", message: "the server lists this tool name more than once: the first definition is used" }]);
  });

  it("type-checks with tsc in strict mode with noUncheckedIndexedAccess", () => {
    const files = fs.readdirSync(path.join(temp.dir, "servers"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts")).map((f) => path.join(temp.dir, "servers", f));
    expect(files).toHaveLength(2135 + 85);
    expect(typeCheckFiles([...files, path.join(temp.dir, "runtime", "call-mcp-tool.ts")])).toEqual([]);
  }, 300_000);

  it("compiles every Python file and imports every module", async () => {
    const compiled = await runProcess("python3", ["-m", "compileall", "-q", path.join(temp.dir, "python")], { timeoutMs: 240_000 });
    expect(compiled).toMatchObject({ code: 0, stderr: "" });
    fs.writeFileSync(path.join(temp.dir, "import-all.py"), importAll);
    const imported = await runProcess("python3", [path.join(temp.dir, "import-all.py")], { env: { PYTHONPATH: path.join(temp.dir, "python"), PATH: process.env.PATH ?? "" }, timeoutMs: 240_000 });
    expect(imported).toMatchObject({ code: 0, stderr: "", stdout: "2135\n" });
  }, 300_000);

  it("regenerates nothing when nothing changed", async () => {
    const again = await generateCodeApi({ servers: readCorpusCatalog(), outDir: temp.dir });
    expect(again.generated).toEqual([]);
    expect(again.unchanged).toHaveLength(85);
  }, 120_000);
});

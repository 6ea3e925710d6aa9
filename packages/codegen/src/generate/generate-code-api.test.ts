import fs from "node:fs";
import path from "node:path";
import { isThinktankError } from "@thinktank/core";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { CodegenServer } from "./codegen-types.js";
import { generateCodeApi } from "./generate-code-api.js";
import { readCodeApiManifest } from "./code-api-manifest.js";

const tool = (name: string, properties: Record<string, unknown> = {}) => ({ name, description: `The ${name} tool.`, inputSchema: { type: "object", properties } });
const alpha: CodegenServer = { server: "alpha", tools: [tool("first_tool", { a: { type: "string" } }), tool("second")] };
const beta: CodegenServer = { server: "beta:two", tools: [tool("only")] };

let cleanup = (): void => {};
afterEach(() => cleanup());
function tempDir(): string {
  const temp = makeTempDir();
  cleanup = temp.cleanup;
  return temp.dir;
}

/** mtime (ms) of every file under a folder, by relative path. */
function mtimes(root: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out[path.relative(root, file)] = fs.statSync(file).mtimeMs;
  }
  return out;
}

/** Sets every file under a folder to one moment long past, so a rewrite shows in its mtime whatever the filesystem's mtime granularity. */
function agePast(root: string): void {
  const past = new Date("2001-01-01T00:00:00Z");
  for (const file of Object.keys(mtimes(root))) fs.utimesSync(path.join(root, file), past, past);
}

async function expectError(promise: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(isThinktankError(error) ? { code: error.code, message: error.message } : error).toEqual({ code, message: expect.stringMatching(message) });
}

describe("generateCodeApi", () => {
  it("writes the layout: wrappers, indexes, runtimes, package.json, README and manifest", async () => {
    const outDir = tempDir();
    const result = await generateCodeApi({ servers: [alpha, beta], outDir });
    expect(result.generated).toEqual(["alpha", "beta:two"]);
    expect(result.unchanged).toEqual([]);
    const files = Object.keys(mtimes(outDir)).sort();
    expect(files).toEqual([
      "README.md",
      "manifest.json",
      "package.json",
      "python/servers/__init__.py",
      "python/servers/alpha/__init__.py",
      "python/servers/alpha/first_tool.py",
      "python/servers/alpha/second.py",
      "python/servers/beta_two/__init__.py",
      "python/servers/beta_two/only.py",
      "python/thinktank_bridge.py",
      "runtime/call-mcp-tool.ts",
      "servers/alpha/firstTool.ts",
      "servers/alpha/index.ts",
      "servers/alpha/second.ts",
      "servers/beta-two/index.ts",
      "servers/beta-two/only.ts",
    ]);
    expect(JSON.parse(fs.readFileSync(path.join(outDir, "package.json"), "utf8"))).toEqual({ private: true, type: "module" });
    const manifest = readCodeApiManifest(outDir);
    expect(manifest.state === "ok" && manifest.manifest.servers["beta:two"]).toMatchObject({ dir: "beta-two", pythonPackage: "beta_two", tools: [{ tool: "only", functionName: "only", pythonFunctionName: "only" }] });
    expect(result.index.find("beta:two", "only")?.wrapperPath).toBe("/mnt/code-api/servers/beta-two/only.ts");
  });

  it("leaves unchanged servers untouched, regenerates a changed one and deletes a removed one", async () => {
    const outDir = tempDir();
    await generateCodeApi({ servers: [alpha, beta], outDir });
    agePast(outDir);
    const before = mtimes(outDir);

    const again = await generateCodeApi({ servers: [alpha, beta], outDir });
    expect(again).toMatchObject({ generated: [], unchanged: ["alpha", "beta:two"], removed: [], filesWritten: 0 });
    expect(mtimes(outDir)).toEqual({ ...before, "manifest.json": expect.any(Number) });

    const alphaChanged: CodegenServer = { server: "alpha", tools: [tool("first_tool", { a: { type: "number" } }), tool("third")] };
    const changed = await generateCodeApi({ servers: [alphaChanged], outDir });
    expect(changed).toMatchObject({ generated: ["alpha"], unchanged: [], removed: ["beta:two"] });
    const after = mtimes(outDir);
    expect(Object.keys(after).filter((f) => f.includes("beta"))).toEqual([]);
    expect(after["servers/alpha/second.ts"]).toBeUndefined();
    expect(after["python/servers/alpha/second.py"]).toBeUndefined();
    expect(fs.readFileSync(path.join(outDir, "servers/alpha/firstTool.ts"), "utf8")).toContain("a?: number;");
    expect(fs.readFileSync(path.join(outDir, "servers/alpha/third.ts"), "utf8")).toContain("export async function third(");
    // Shared files whose content did not change keep their mtime too.
    expect(after["runtime/call-mcp-tool.ts"]).toBe(before["runtime/call-mcp-tool.ts"]);
    // Nothing left over: no staging folder, no lock.
    expect(fs.readdirSync(outDir).sort()).toEqual(["README.md", "manifest.json", "package.json", "python", "runtime", "servers"]);
  });

  it("regenerates a server whose folder went missing, and on force or clean", async () => {
    const outDir = tempDir();
    await generateCodeApi({ servers: [alpha, beta], outDir });
    fs.rmSync(path.join(outDir, "python", "servers", "beta_two"), { recursive: true });
    expect((await generateCodeApi({ servers: [alpha, beta], outDir })).generated).toEqual(["beta:two"]);
    expect(fs.existsSync(path.join(outDir, "python", "servers", "beta_two", "only.py"))).toBe(true);
    expect((await generateCodeApi({ servers: [alpha, beta], outDir, force: ["alpha"] })).generated).toEqual(["alpha"]);
    expect((await generateCodeApi({ servers: [alpha, beta], outDir, force: true })).generated).toEqual(["alpha", "beta:two"]);
    fs.writeFileSync(path.join(outDir, "servers", "alpha", "stray.ts"), "// left by hand\n");
    expect((await generateCodeApi({ servers: [alpha, beta], outDir, clean: true })).generated).toEqual(["alpha", "beta:two"]);
    expect(fs.existsSync(path.join(outDir, "servers", "alpha", "stray.ts"))).toBe(false);
  });

  it("keeps servers absent from the input when prune is false", async () => {
    const outDir = tempDir();
    await generateCodeApi({ servers: [alpha, beta], outDir });
    const result = await generateCodeApi({ servers: [alpha], outDir, prune: false, force: ["alpha"] });
    expect(result).toMatchObject({ generated: ["alpha"], removed: [] });
    expect(fs.existsSync(path.join(outDir, "servers", "beta-two", "only.ts"))).toBe(true);
    const manifest = readCodeApiManifest(outDir);
    expect(manifest.state === "ok" && Object.keys(manifest.manifest.servers).sort()).toEqual(["alpha", "beta:two"]);
    // A later run that prunes removes it.
    expect((await generateCodeApi({ servers: [alpha], outDir })).removed).toEqual(["beta:two"]);
    expect(fs.existsSync(path.join(outDir, "servers", "beta-two"))).toBe(false);
  });

  it("follows a change of languages: dropping Python removes its folder", async () => {
    const outDir = tempDir();
    await generateCodeApi({ servers: [alpha], outDir });
    const result = await generateCodeApi({ servers: [alpha], outDir, languages: ["typescript"] });
    expect(result.generated).toEqual(["alpha"]);
    expect(fs.existsSync(path.join(outDir, "python"))).toBe(false);
    expect(fs.existsSync(path.join(outDir, "servers", "alpha", "firstTool.ts"))).toBe(true);
    await generateCodeApi({ servers: [alpha], outDir, languages: ["python"] });
    expect(fs.existsSync(path.join(outDir, "servers"))).toBe(false);
    expect(fs.existsSync(path.join(outDir, "runtime"))).toBe(false);
    expect(fs.existsSync(path.join(outDir, "python", "servers", "alpha", "first_tool.py"))).toBe(true);
  });

  it("moves a server whose folder name is taken over by another, without losing either", async () => {
    const outDir = tempDir();
    await generateCodeApi({ servers: [{ server: "My Server", tools: [tool("a")] }], outDir });
    expect(fs.existsSync(path.join(outDir, "servers", "my-server", "a.ts"))).toBe(true);
    // "my-server" is its own folder name, so it takes "my-server" and "My Server" moves to "my-server-2".
    await generateCodeApi({ servers: [{ server: "My Server", tools: [tool("a")] }, { server: "my-server", tools: [tool("b")] }], outDir });
    expect(fs.readdirSync(path.join(outDir, "servers", "my-server"))).toEqual(["b.ts", "index.ts"]);
    expect(fs.readdirSync(path.join(outDir, "servers", "my-server-2"))).toEqual(["a.ts", "index.ts"]);
    expect(fs.readFileSync(path.join(outDir, "servers", "my-server-2", "a.ts"), "utf8")).toContain('callMCPTool<Response>("My Server", "a"');
  });

  it("recovers from a corrupt manifest by rebuilding from scratch", async () => {
    const outDir = tempDir();
    await generateCodeApi({ servers: [alpha, beta], outDir });
    fs.writeFileSync(path.join(outDir, "manifest.json"), "{ not json");
    const result = await generateCodeApi({ servers: [alpha], outDir });
    expect(result.generated).toEqual(["alpha"]);
    expect(fs.existsSync(path.join(outDir, "servers", "beta-two"))).toBe(false);
    expect(readCodeApiManifest(outDir).state).toBe("ok");
  });

  it("lets concurrent runs on one folder take turns", async () => {
    const outDir = tempDir();
    const results = await Promise.all([generateCodeApi({ servers: [alpha, beta], outDir }), generateCodeApi({ servers: [alpha, beta], outDir })]);
    expect(results.map((r) => r.generated.length).sort()).toEqual([0, 2]);
    expect(fs.existsSync(path.join(outDir, ".staging"))).toBe(false);
  });

  it("refuses bad input with a code, before writing anything", async () => {
    const outDir = tempDir();
    await expectError(generateCodeApi({ servers: [alpha, { ...alpha }], outDir }), "CODEGEN_DUPLICATE_SERVER", /server "alpha" is listed twice/);
    await expectError(generateCodeApi({ servers: [{ server: "x", tools: [{ name: "t", inputSchema: "nope" }] }], outDir }), "VALIDATION_FAILED", /tool 0 of server "x" must have .* got name "t" and inputSchema string/);
    await expectError(generateCodeApi({ servers: [{ server: "x", tools: [{ name: "", inputSchema: {} }] }], outDir }), "VALIDATION_FAILED", /non-empty name/);
    await expectError(generateCodeApi({ servers: [{ server: "", tools: [] }], outDir }), "VALIDATION_FAILED", /servers\[0\] must be/);
    await expectError(generateCodeApi({ servers: [], outDir, languages: ["rust" as "python"] }), "VALIDATION_FAILED", /languages must be .* got \["rust"\]/);
    await expectError(generateCodeApi({ servers: [], outDir, languages: [] }), "VALIDATION_FAILED", /languages must be a non-empty list/);
    await expectError(generateCodeApi({ servers: [], outDir: "" }), "VALIDATION_FAILED", /outDir must be a folder path/);
    expect(fs.readdirSync(outDir)).toEqual([]);
  });

  it("refuses a folder that holds someone else's files and touches none of them", async () => {
    const outDir = tempDir();
    fs.writeFileSync(path.join(outDir, "package.json"), '{"name":"mine"}');
    fs.writeFileSync(path.join(outDir, "notes.txt"), "keep me");
    await expectError(generateCodeApi({ servers: [alpha], outDir }), "CODEGEN_OUTPUT_NOT_EMPTY", /holds files the code generator did not write \(notes\.txt\)/);
    expect(fs.readFileSync(path.join(outDir, "package.json"), "utf8")).toBe('{"name":"mine"}');
    expect(fs.readdirSync(outDir).sort()).toEqual(["notes.txt", "package.json"]);
  });

  it("handles servers named like Object.prototype members", async () => {
    const outDir = tempDir();
    const odd = [{ server: "__proto__", tools: [tool("a")] }, { server: "constructor", tools: [tool("b")] }];
    expect((await generateCodeApi({ servers: odd, outDir })).generated).toEqual(["__proto__", "constructor"]);
    expect((await generateCodeApi({ servers: odd, outDir })).unchanged).toEqual(["__proto__", "constructor"]);
    expect(fs.readFileSync(path.join(outDir, "servers", "proto", "a.ts"), "utf8")).toContain('callMCPTool<Response>("__proto__", "a"');
  });

  it("reports progress per server", async () => {
    const outDir = tempDir();
    const events: string[] = [];
    await generateCodeApi({ servers: [alpha, beta], outDir, onProgress: (e) => events.push(`${e.done}/${e.total} ${e.server} ${e.action}`) });
    await generateCodeApi({ servers: [alpha, beta], outDir, onProgress: (e) => events.push(`${e.done}/${e.total} ${e.server} ${e.action}`) });
    expect(events).toEqual(["1/2 alpha generated", "2/2 beta:two generated", "1/2 alpha unchanged", "2/2 beta:two unchanged"]);
  });
});

import fs from "node:fs";
import path from "node:path";
import { isThinktankError } from "@thinktank/core";
import { afterEach, describe, expect, it } from "vitest";
import { createToolsFixture, helloWorldDefinition, helloWorldPython } from "../test-support/tools-fixture.js";
import type { ToolsFixture } from "../test-support/tools-fixture.js";

let fixture: ToolsFixture;
afterEach(() => fixture?.cleanup());

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string; problems: { path: string; message: string }[] }> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isThinktankError(error)) throw new Error(`expected a ThinktankError, got ${String(error)}`);
  return { code: error.code, message: error.message, problems: (error.details?.problems as { path: string; message: string }[]) ?? [] };
}

describe("ToolRegistry: registering", () => {
  it("stores the entry in extensions_config.json and the script under a new file name", async () => {
    fixture = createToolsFixture();
    const tool = await fixture.registry.register({ definition: helloWorldDefinition() });
    expect(tool).toMatchObject({ name: "hello_world", runtime: "python", timeout: 20, parallel_capable: false, enabled: true });
    expect(tool.script).toMatch(/^hello_world-[0-9a-f]{12}\.py$/);
    const written = JSON.parse(fs.readFileSync(fixture.file, "utf8")) as { tools: Record<string, Record<string, unknown>>; revision: number };
    expect(written.tools.hello_world).toMatchObject({ description: expect.any(String), runtime: "python", script: tool.script, timeout: 20 });
    expect(written.tools.hello_world).not.toHaveProperty("name");
    expect(written.revision).toBe(1);
    expect(fs.readFileSync(path.join(fixture.scriptsDir, tool.script), "utf8")).toBe(helloWorldPython);
    expect((await fixture.registry.list()).map((t) => t.name)).toEqual(["hello_world"]);
    expect(await fixture.registry.get("hello_world")).toEqual(tool);
  });

  it("takes the script as an upload, and stores node scripts as .mjs or .cjs by their syntax", async () => {
    fixture = createToolsFixture();
    const { script: _script, ...definition } = helloWorldDefinition({ name: "esm_tool", runtime: "node" });
    const esm = await fixture.registry.register({ definition, file: { content: Buffer.from("import fs from 'node:fs';\nconsole.log('{}');\n"), fileName: "x.js" } });
    expect(esm.script).toMatch(/^esm_tool-.*\.mjs$/);
    const cjs = await fixture.registry.register({ definition: { ...definition, name: "cjs_tool" }, file: { content: Buffer.from("const fs = require('fs');\n") } });
    expect(cjs.script).toMatch(/\.cjs$/);
    const forced = await fixture.registry.register({ definition: { ...definition, name: "forced" }, file: { content: Buffer.from("console.log(1)\n"), fileName: "tool.mjs" } });
    expect(forced.script).toMatch(/\.mjs$/);
  });

  it("refuses a name taken, and leaves the first tool and no stray script", async () => {
    fixture = createToolsFixture();
    const first = await fixture.registry.register({ definition: helloWorldDefinition() });
    const error = await failure(fixture.registry.register({ definition: helloWorldDefinition({ description: "another" }) }));
    expect(error.code).toBe("TOOL_NAME_CONFLICT");
    expect(fixture.scriptFiles()).toEqual([first.script]);
    expect((await fixture.registry.get("hello_world")).description).toBe(first.description);
  });

  it.each([
    [{ name: "bad name" }, "name", /not a valid tool name/],
    [{ name: "x".repeat(65) }, "name", /not a valid tool name/],
    [{ name: "Web_Search" }, "name", /built-in tool/],
    [{ name: "execute_code" }, "name", /built-in tool/],
    [{ paralel_capable: true }, "paralel_capable", /not a known field/],
    [{ runtime: "ruby" }, "runtime", /must be one of "python", "node", "shell"/],
    [{ runtime: undefined }, "runtime", /is required/],
    [{ timeout: 0 }, "timeout", /must be > 0/],
    [{ timeout: 99999 }, "timeout", /must be <= 3600/],
    [{ description: "" }, "description", /must NOT have fewer than 1 characters/],
    [{ input_schema: { properties: {} } }, "input_schema.type", /is required/],
    [{ input_schema: { type: "array" } }, "input_schema.type", /must be "object"/],
    [{ input_schema: { type: "object", propertys: { a: { type: "string" } } } }, "input_schema.propertys", /unknown JSON Schema keyword "propertys"/],
    [{ input_schema: { type: "object", properties: { a: { type: "strng" } } } }, "input_schema.properties.a.type", /must be one of "array", "boolean"/],
    [{ input_schema: { type: "object", properties: { a: { type: "string", format: "emial" } } } }, "input_schema.properties.a", /unknown format "emial"/],
    [{ input_schema: { type: "object", properties: { name: { type: "string" } }, required: ["nmae"] } }, "input_schema", /nmae/],
    [{ output_schema: { type: "object", properties: { greeting: { type: "sting" } } } }, "output_schema.properties.greeting.type", /must be one of "array"/],
    [{ output_schema: "a string" }, "output_schema", /must be object/],
    [{ script: "   \n" }, "script", /empty/],
    [{ script: undefined }, "script", /is required/],
    [{ env: { "BAD NAME": "x" } }, "env", /property name must be valid|must match pattern/],
  ])("refuses %j with the path of the bad field (%s) and leaves the file untouched", async (change, expectedPath, message) => {
    fixture = createToolsFixture();
    const before = fs.readFileSync(fixture.file);
    const definition = helloWorldDefinition(change);
    for (const [key, value] of Object.entries(change)) if (value === undefined) delete definition[key];
    const error = await failure(fixture.registry.register({ definition }));
    expect(error.code).toBe("VALIDATION_FAILED");
    const problem = error.problems.find((p) => p.path === expectedPath);
    expect(problem, JSON.stringify(error.problems)).toBeDefined();
    expect(problem?.message).toMatch(message);
    expect(fs.readFileSync(fixture.file).equals(before)).toBe(true);
    expect(fixture.scriptFiles()).toEqual([]);
  });

  it("refuses a script in both the definition and the upload, and binary uploads", async () => {
    fixture = createToolsFixture();
    const both = await failure(fixture.registry.register({ definition: helloWorldDefinition(), file: { content: Buffer.from("print(1)") } }));
    expect(both.problems.map((p) => p.path)).toContain("script");
    const { script: _script, ...definition } = helloWorldDefinition();
    const binary = await failure(fixture.registry.register({ definition, file: { content: Buffer.from([0x70, 0, 0x71]) } }));
    expect(binary.problems).toEqual([{ path: "file", message: expect.stringMatching(/not a text file/) }]);
    expect(fixture.scriptFiles()).toEqual([]);
  });

  it("keeps every one of many concurrent registrations, and the file stays valid", async () => {
    fixture = createToolsFixture();
    const names = Array.from({ length: 24 }, (_, index) => `tool_${index}`);
    const results = await Promise.allSettled(names.map((name) => fixture.registry.register({ definition: helloWorldDefinition({ name }) })));
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    const written = JSON.parse(fs.readFileSync(fixture.file, "utf8")) as { tools: Record<string, unknown>; revision: number };
    expect(Object.keys(written.tools).sort()).toEqual([...names].sort());
    expect(written.revision).toBe(names.length);
    expect(fixture.scriptFiles()).toHaveLength(names.length);
  });

  it("lets exactly one of several concurrent registrations of one name win", async () => {
    fixture = createToolsFixture();
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, index) => fixture.registry.register({ definition: helloWorldDefinition({ description: `v${index}` }) })));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const result of results) if (result.status === "rejected") expect((result.reason as { code?: string }).code).toBe("TOOL_NAME_CONFLICT");
    expect(fixture.scriptFiles()).toHaveLength(1);
  });
});

describe("ToolRegistry: changing and removing", () => {
  it("changes the fields given, keeps the script when none is sent, and swaps it when one is", async () => {
    fixture = createToolsFixture();
    const first = await fixture.registry.register({ definition: helloWorldDefinition() });
    const described = await fixture.registry.update("hello_world", { definition: { description: "Greets people.", parallel_capable: true } });
    expect(described).toMatchObject({ description: "Greets people.", parallel_capable: true, script: first.script, timeout: 20 });
    const replaced = await fixture.registry.update("hello_world", { definition: { script: "print('{}')\n" } });
    expect(replaced.script).not.toBe(first.script);
    expect(fixture.scriptFiles()).toEqual([replaced.script]);
    const uploaded = await fixture.registry.update("hello_world", { definition: {}, file: { content: Buffer.from("print('{}')\n") } });
    expect(fixture.scriptFiles()).toEqual([uploaded.script]);
    expect(uploaded.created_at).toBe(first.created_at);
  });

  it("refuses an invalid change with a 400 and leaves the file and the scripts as they were", async () => {
    fixture = createToolsFixture();
    const first = await fixture.registry.register({ definition: helloWorldDefinition() });
    const before = fs.readFileSync(fixture.file);
    for (const change of [{ timeout: -1 }, { input_schema: { type: "object", requierd: [] } }, { name: "other" }, { enabled: "yes" }, { script: "print(1)", runtime: "ruby" }]) {
      const error = await failure(fixture.registry.update("hello_world", { definition: change }));
      expect(error.code).toBe("VALIDATION_FAILED");
      expect(fs.readFileSync(fixture.file).equals(before)).toBe(true);
      expect(fixture.scriptFiles()).toEqual([first.script]);
    }
    expect((await failure(fixture.registry.update("nobody", { definition: { enabled: false } }))).code).toBe("TOOL_NOT_FOUND");
  });

  it("removes the entry and its script; the next read no longer has it", async () => {
    fixture = createToolsFixture();
    await fixture.registry.register({ definition: helloWorldDefinition() });
    expect((await fixture.registry.view()).tools.has("hello_world")).toBe(true);
    await fixture.registry.remove("hello_world");
    expect((await fixture.registry.view()).tools.has("hello_world")).toBe(false);
    expect(fixture.scriptFiles()).toEqual([]);
    expect((await failure(fixture.registry.remove("hello_world"))).code).toBe("TOOL_NOT_FOUND");
    expect((await failure(fixture.registry.get("hello_world"))).code).toBe("TOOL_NOT_FOUND");
  });

  it("repairs a malformed hand-written entry with PUT", async () => {
    fixture = createToolsFixture({ tools: { fixme: { description: "d", input_schema: { type: "object", propertys: {} }, runtime: "python", script: "f.py" } }, scripts: { "f.py": "print('{}')" } });
    expect((await fixture.registry.view()).tools.has("fixme")).toBe(false);
    const repaired = await fixture.registry.update("fixme", { definition: { input_schema: { type: "object", properties: {} } } });
    expect(repaired).toMatchObject({ name: "fixme", runtime: "python", script: "f.py" });
    expect((await fixture.registry.view()).problems).toEqual([]);
  });

  it("keeps a script another (hand-written) entry still uses", async () => {
    const entry = { description: "d", input_schema: { type: "object" }, runtime: "python", script: "shared.py" };
    fixture = createToolsFixture({ tools: { one: entry, two: entry }, scripts: { "shared.py": "print('{}')" } });
    await fixture.registry.remove("one");
    expect(fixture.scriptFiles()).toEqual(["shared.py"]);
    await fixture.registry.remove("two");
    expect(fixture.scriptFiles()).toEqual([]);
  });
});

describe("ToolRegistry: a malformed registry", () => {
  it("leaves bad hand-written entries out of the view and names them, with paths, in check()", async () => {
    fixture = createToolsFixture({
      tools: {
        good: { description: "fine", input_schema: { type: "object" }, runtime: "shell", script: "good.sh" },
        typo: { description: "x", input_schema: { type: "object", propertys: {} }, runtime: "python", script: "t.py" },
        web_search: { description: "x", input_schema: { type: "object" }, runtime: "python", script: "w.py" },
        "bad name": { description: "x", input_schema: { type: "object" }, runtime: "python", script: "b.py" },
        escape: { description: "x", input_schema: { type: "object" }, runtime: "python", script: "../outside.py" },
      },
    });
    const view = await fixture.registry.view();
    expect([...view.tools.keys()]).toEqual(["good"]);
    const paths = view.problems.map((p) => p.path);
    expect(paths).toEqual(expect.arrayContaining(["tools.typo.input_schema.propertys", "tools.web_search", "tools.bad name", "tools.escape.script"]));
    const error = await failure(fixture.registry.check());
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.message).toMatch(/tools registry is malformed: .*tools\.typo\.input_schema\.propertys/);
  });

  it("passes the store's own errors through: a file that is not JSON", async () => {
    fixture = createToolsFixture();
    fs.writeFileSync(fixture.file, "{ not json");
    expect((await failure(fixture.registry.check())).code).toBe("STORE_CORRUPT");
  });
});

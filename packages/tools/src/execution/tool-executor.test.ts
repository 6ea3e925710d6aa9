import fs from "node:fs";
import path from "node:path";
import { processesWithMarker } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../test-support/process-state.js";
import { createToolsFixture, helloWorldDefinition } from "../test-support/tools-fixture.js";
import type { ToolsFixture } from "../test-support/tools-fixture.js";
import type { ToolResponse } from "../tool-response.js";

let fixture: ToolsFixture;
afterEach(() => fixture?.cleanup());

const anyObject = { type: "object" };

async function register(name: string, runtime: string, script: string, extra: Record<string, unknown> = {}): Promise<void> {
  await fixture.registry.register({ definition: { name, description: `${name} tool`, input_schema: anyObject, runtime, script, ...extra } });
}

function errorOf(response: ToolResponse): { code: string; message: string; details?: Record<string, unknown> } {
  if (response.status !== "error") throw new Error(`expected an error, got ${JSON.stringify(response)}`);
  return response.error as { code: string; message: string; details?: Record<string, unknown> };
}

describe("ToolExecutor", () => {
  it("runs hello_world: JSON arguments in on stdin, JSON out, checked against both schemas, and logged", async () => {
    fixture = createToolsFixture();
    await fixture.registry.register({ definition: helloWorldDefinition() });
    const response = await fixture.executor.invoke("hello_world", { name: "Ada" }, { source: "test", threadId: "t1" });
    expect(response).toEqual({ status: "success", data: { greeting: "Hello, Ada!" } });
    const [record] = await fixture.log.recent({ tool: "hello_world" });
    expect(record).toMatchObject({ tool: "hello_world", arguments: { name: "Ada" }, status: "success", output: { greeting: "Hello, Ada!" }, source: "test", thread_id: "t1" });
    expect(record?.duration_ms).toBeGreaterThan(0);
    expect(Date.parse(record?.started_at ?? "")).not.toBeNaN();
  });

  it("refuses arguments that break input_schema before the script starts", async () => {
    fixture = createToolsFixture();
    const marker = path.join(fixture.dir, "ran");
    await fixture.registry.register({
      definition: helloWorldDefinition({ script: `import json, sys\nopen(${JSON.stringify(marker)}, "w").write("x")\nprint(json.dumps({"greeting": "hi"}))\n` }),
    });
    for (const args of [{}, { name: 5 }, { name: "" }, { name: "a", extra: true }, [], "text", null]) {
      const error = errorOf(await fixture.executor.invoke("hello_world", args));
      expect(error.code).toBe("TOOL_INVALID_ARGUMENTS");
    }
    const error = errorOf(await fixture.executor.invoke("hello_world", { name: 5 }));
    expect(error.details?.problems).toEqual([{ path: "arguments.name", message: "must be string" }]);
    expect(fs.existsSync(marker)).toBe(false);
    const logged = await fixture.log.recent({ tool: "hello_world", limit: 100 });
    expect(logged).toHaveLength(8);
    expect(logged.every((record) => record.status === "error" && record.error?.code === "TOOL_INVALID_ARGUMENTS")).toBe(true);
  });

  it("refuses output that breaks output_schema, and output that is not JSON", async () => {
    fixture = createToolsFixture();
    await fixture.registry.register({ definition: helloWorldDefinition({ script: 'print(\'{"greeting": 42}\')\n' }) });
    const invalid = errorOf(await fixture.executor.invoke("hello_world", { name: "x" }));
    expect(invalid.code).toBe("TOOL_OUTPUT_INVALID");
    expect(invalid.details?.problems).toEqual([{ path: "output.greeting", message: "must be string" }]);
    await register("chatty", "python", "import sys\nprint('working...')\nprint('{}')\n");
    const chatty = errorOf(await fixture.executor.invoke("chatty", {}));
    expect(chatty.code).toBe("TOOL_OUTPUT_NOT_JSON");
    expect(chatty.details?.stdout_preview).toContain("working...");
    await register("silent", "shell", "exit 0\n");
    expect(errorOf(await fixture.executor.invoke("silent", {})).message).toMatch(/printed nothing/);
  });

  it("reports a crash with its exit code and the tail of stderr", async () => {
    fixture = createToolsFixture();
    await register("crash", "python", "import sys\nprint('about to fail', file=sys.stderr)\nraise SystemExit(3)\n");
    const error = errorOf(await fixture.executor.invoke("crash", {}));
    expect(error.code).toBe("TOOL_SCRIPT_FAILED");
    expect(error.message).toMatch(/exited with code 3: about to fail/);
    expect(error.details).toMatchObject({ exit_code: 3, stderr_tail: expect.stringContaining("about to fail") });
    await register("traceback", "python", "raise ValueError('bad input')\n");
    expect(errorOf(await fixture.executor.invoke("traceback", {})).message).toMatch(/exited with code 1: ValueError: bad input/);
  });

  // Each test's sleeps carry a marker (a duration of their own), so the host finds them whatever pid their namespace gave them.
  const sleepMarker = (): string => `60.${String(process.pid)}${String(Math.floor(Math.random() * 1e9)).padStart(9, "0")}`;

  it("kills the whole process tree on timeout, grandchildren included", async () => {
    fixture = createToolsFixture();
    const started = path.join(fixture.dir, "started");
    const marker = sleepMarker();
    // A plain grandchild, one under another shell, one that left the process group (setsid), and one double-forked away.
    const script = `sleep ${marker} &\nsh -c 'sleep ${marker}' &\nsetsid sleep ${marker} &\n(setsid sleep ${marker} &)\ntouch ${started}\nwait\n`;
    await register("stuck", "shell", script, { timeout: 1 });
    const startedAt = Date.now();
    const error = errorOf(await fixture.executor.invoke("stuck", {}));
    expect(error.code).toBe("TIMEOUT");
    expect(error.message).toMatch(/within 1 s; its process tree was killed/);
    expect(Date.now() - startedAt).toBeLessThan(20_000);
    expect(fs.existsSync(started)).toBe(true);
    expect(await eventually(() => processesWithMarker(marker).length === 0)).toBe(true);
  });

  it("kills what a finished script left running, a setsid double fork included", async () => {
    fixture = createToolsFixture();
    const marker = sleepMarker();
    await register("leaky", "shell", `(sleep ${marker} > /dev/null 2>&1 &)\n(setsid sleep ${marker} > /dev/null 2>&1 &)\necho '{"ok": true}'\n`);
    expect(await fixture.executor.invoke("leaky", {})).toEqual({ status: "success", data: { ok: true } });
    expect(await eventually(() => processesWithMarker(marker).length === 0)).toBe(true);
  });

  it("answers TOOL_EXECUTION_ERROR for a missing script, TOOL_NOT_FOUND and TOOL_DISABLED for tools it cannot run", async () => {
    fixture = createToolsFixture({ tools: { ghost: { description: "d", input_schema: anyObject, runtime: "python", script: "ghost.py" } } });
    const missing = errorOf(await fixture.executor.invoke("ghost", {}));
    expect(missing).toMatchObject({ code: "TOOL_EXECUTION_ERROR", message: expect.stringMatching(/ghost\.py\) is missing/) });
    expect(missing.message).not.toContain(fixture.dir);
    expect(errorOf(await fixture.executor.invoke("nobody", {})).code).toBe("TOOL_NOT_FOUND");
    await fixture.registry.register({ definition: helloWorldDefinition({ enabled: false }) });
    expect(errorOf(await fixture.executor.invoke("hello_world", { name: "x" })).code).toBe("TOOL_DISABLED");
    expect((await fixture.log.recent({ limit: 10 })).map((r) => r.error?.code)).toEqual(["TOOL_DISABLED", "TOOL_NOT_FOUND", "TOOL_EXECUTION_ERROR"]);
  });

  it("says so when the registry cannot be read, instead of TOOL_NOT_FOUND", async () => {
    fixture = createToolsFixture();
    fs.writeFileSync(fixture.file, "{ broken");
    expect(errorOf(await fixture.executor.invoke("hello_world", { name: "x" }))).toMatchObject({ code: "STORE_CORRUPT", message: expect.stringContaining(fixture.file) });
  });

  it("gives scripts a clean environment and a private working folder that is removed afterwards", async () => {
    fixture = createToolsFixture({ executor: { variables: { TT_GREETING: "bonjour", SECRET_FROM_HOST: "do-not-leak" } } });
    process.env.TT_EXECUTOR_TEST_SECRET = "host-secret-value";
    try {
      const script = "import json, os\nprint(json.dumps({'env': dict(os.environ), 'cwd': os.getcwd()}))\n";
      await register("environ", "python", script, { env: { GREETING: "${TT_GREETING}", UNSET: "${TT_NOT_SET}" } });
      const response = await fixture.executor.invoke("environ", {});
      if (response.status !== "success") throw new Error(JSON.stringify(response));
      const { env, cwd } = response.data as { env: Record<string, string>; cwd: string };
      expect(env.GREETING).toBe("bonjour");
      expect(env.UNSET).toBe("${TT_NOT_SET}");
      expect(env.THINKTANK_TOOL_NAME).toBe("environ");
      expect(JSON.stringify(env)).not.toMatch(/host-secret-value|do-not-leak/);
      expect(Object.keys(env).sort()).toEqual(["GREETING", "HOME", "LANG", "PATH", "PYTHONDONTWRITEBYTECODE", "PYTHONIOENCODING", "PYTHONUNBUFFERED", "THINKTANK_TOOL_NAME", "TMPDIR", "UNSET"]);
      expect(env.HOME).toBe(cwd);
      expect(path.dirname(cwd)).toBe(path.join(fixture.dir, "work"));
      expect(fs.existsSync(cwd)).toBe(false);
    } finally {
      delete process.env.TT_EXECUTOR_TEST_SECRET;
    }
  });

  it("runs node (module or CommonJS) and shell scripts", async () => {
    fixture = createToolsFixture();
    await register("esm", "node", "import { readFileSync } from 'node:fs';\nconst args = JSON.parse(readFileSync(0, 'utf8'));\nconsole.log(JSON.stringify({ doubled: args.n * 2 }));\n");
    await register("cjs", "node", "let text = '';\nprocess.stdin.on('data', (c) => (text += c)).on('end', () => console.log(JSON.stringify(JSON.parse(text).n + 1)));\n");
    await register("sh", "shell", 'read -r input\nprintf \'{"input": %s}\\n\' "$input"\n');
    expect(await fixture.executor.invoke("esm", { n: 21 })).toEqual({ status: "success", data: { doubled: 42 } });
    expect(await fixture.executor.invoke("cjs", { n: 1 })).toEqual({ status: "success", data: 2 });
    expect(await fixture.executor.invoke("sh", { n: 1 })).toEqual({ status: "success", data: { input: { n: 1 } } });
  });

  it("stops a script that floods stdout, and one whose call is cancelled", async () => {
    fixture = createToolsFixture({ executor: { maxOutputBytes: 10_000 } });
    await register("flood", "python", "import sys\nwhile True: sys.stdout.write('x' * 4096)\n");
    expect(errorOf(await fixture.executor.invoke("flood", {})).code).toBe("TOOL_OUTPUT_TOO_LARGE");
    // The script says when it runs (a file), and the call is cancelled then, not after a guessed delay.
    const running = path.join(fixture.dir, "slow-running");
    await register("slow", "shell", `: > '${running}'\nsleep 30\n`);
    const controller = new AbortController();
    const started = Date.now();
    const call = fixture.executor.invoke("slow", {}, { signal: controller.signal });
    await expect.poll(() => fs.existsSync(running), { timeout: 15_000, interval: 25 }).toBe(true);
    controller.abort();
    expect(errorOf(await call).code).toBe("CANCELLED");
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it("answers TOOL_EXECUTION_ERROR when the runtime's interpreter is not installed", async () => {
    fixture = createToolsFixture({ executor: { searchPath: "/nonexistent" } });
    await register("py", "python", "print('{}')\n");
    const error = errorOf(await fixture.executor.invoke("py", {}));
    expect(error).toMatchObject({ code: "TOOL_EXECUTION_ERROR", message: expect.stringMatching(/needs 'python3', which is not installed/) });
  });

  it("uses a change on the very next call (hot reload)", async () => {
    fixture = createToolsFixture();
    await fixture.registry.register({ definition: helloWorldDefinition() });
    expect((await fixture.executor.invoke("hello_world", { name: "a" })).status).toBe("success");
    await fixture.registry.update("hello_world", { definition: { script: 'print(\'{"greeting": "changed"}\')\n' } });
    expect(await fixture.executor.invoke("hello_world", { name: "a" })).toEqual({ status: "success", data: { greeting: "changed" } });
    await fixture.registry.remove("hello_world");
    expect(errorOf(await fixture.executor.invoke("hello_world", { name: "a" })).code).toBe("TOOL_NOT_FOUND");
  });
});

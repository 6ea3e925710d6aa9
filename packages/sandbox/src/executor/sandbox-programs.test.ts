// Ordinary programs: exit codes, errors, stdin, the working directory, and requests rejected before anything starts.
import fs from "node:fs";
import path from "node:path";
import { needs } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxRequest } from "../sandbox-types.js";
import { sandboxFixture } from "../test-support/sandbox-fixture.js";
import type { SandboxFixture } from "../test-support/sandbox-fixture.js";

describe("programs in the bubblewrap sandbox", needs("bubblewrap"), () => {
  let fixture: SandboxFixture;
  let workspace: string;
  beforeAll(() => {
    fixture = sandboxFixture({ warmPoolSize: 1 });
    workspace = fixture.workspace("programs");
  });
  afterAll(() => fixture.cleanup());

  it.each([
    ["javascript", "process.exitCode = 3; console.log('out'); console.error('err');", 3],
    ["python", "import sys\nprint('out')\nprint('err', file=sys.stderr)\nsys.exit(4)", 4],
    ["shell", "echo out; echo err >&2; exit 5", 5],
  ] as const)("reports a %s program's own exit code and both streams, without an error", async (language, source, code) => {
    const result = await fixture.executor.run({ language, source, workspaceDir: workspace });
    expect(result).toMatchObject({ exitCode: code, stdout: "out\n", stderr: "err\n", timedOut: false, stdoutTruncated: false });
    expect(result.error).toBeUndefined();
    expect(result.limit).toBeUndefined();
  });

  it("reports an uncaught JavaScript error with its stack, exit code 1", async () => {
    const result = await fixture.executor.run({ language: "javascript", source: "await Promise.resolve();\nthrow new TypeError('boom');", workspaceDir: workspace });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("TypeError: boom");
    expect(result.error).toBeUndefined();
  });

  it("reports a Python traceback that shows the program's lines, not the bootstrap's", async () => {
    const result = await fixture.executor.run({ language: "python", source: "def explode():\n    raise ValueError('bad value')\n\nexplode()\n", workspaceDir: workspace });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/Traceback \(most recent call last\):\n\s+File "\/tmp\/thinktank-main\.py", line 4/);
    expect(result.stderr).toContain("raise ValueError('bad value')");
    expect(result.stderr).toContain("ValueError: bad value");
    expect(result.stderr).not.toContain("_thinktank_main");
  });

  it("imports Python modules from the workspace, but never into the bootstrap (a planted json.py stays inert)", async () => {
    fs.writeFileSync(path.join(workspace, "json.py"), "import sys\nprint('PLANTED', file=sys.stderr)\n");
    fs.writeFileSync(path.join(workspace, "mymodule.py"), "ANSWER = 7\n");
    try {
      const result = await fixture.executor.run({ language: "python", source: "import mymodule\nprint(mymodule.ANSWER)", workspaceDir: workspace });
      expect(result.stdout, result.stderr).toBe("7\n");
      expect(result.stderr).not.toContain("PLANTED");
    } finally {
      fs.rmSync(path.join(workspace, "json.py"));
    }
  });

  it("runs Python's __main__ guard and honours PYTHONPATH from the request", async () => {
    fs.mkdirSync(path.join(workspace, "lib"), { recursive: true });
    fs.writeFileSync(path.join(workspace, "lib", "helper.py"), "VALUE = 42\n");
    const source = "import helper\nif __name__ == '__main__':\n    print(helper.VALUE)";
    const result = await fixture.executor.run({ language: "python", source, workspaceDir: workspace, env: { PYTHONPATH: "/mnt/user-data/workspace/lib" } });
    expect(result.stdout, result.stderr).toBe("42\n");
  });

  it.each([
    ["javascript", `let text = ""; process.stdin.on("data", (chunk) => (text += chunk)); process.stdin.on("end", () => console.log(text.toUpperCase()));`],
    ["python", "import sys; print(sys.stdin.read().upper())"],
    ["shell", "tr a-z A-Z"],
  ] as const)("feeds stdin to a %s program", async (language, source) => {
    const result = await fixture.executor.run({ language, source, workspaceDir: workspace, stdin: "hello sandbox" });
    expect(result.stdout.trim()).toBe("HELLO SANDBOX");
  });

  it("quotes the shell job safely: quotes, newlines and $ in the environment stay literal", async () => {
    const tricky = `it's "quoted" $HOME \`id\` \n second line`;
    const result = await fixture.executor.run({ language: "shell", source: 'printf "%s" "$TRICKY"', workspaceDir: workspace, env: { TRICKY: tricky } });
    expect(result.stdout).toBe(tricky);
  });

  it.runIf(process.getuid?.() === 0)("reaches a workspace and a mount the sandbox user could not reach on its own (root host: staged binds)", async () => {
    const hidden = path.join(fixture.root, "hidden");
    fs.mkdirSync(path.join(hidden, "api"), { recursive: true, mode: 0o700 });
    fs.chmodSync(hidden, 0o700);
    fs.writeFileSync(path.join(hidden, "api", "index.ts"), "export {};\n");
    fs.chmodSync(path.join(hidden, "api"), 0o755);
    const privateWorkspace = path.join(hidden, "workspace");
    fs.mkdirSync(privateWorkspace, { mode: 0o700 });
    const result = await fixture.executor.run({ language: "shell", source: "cat /mnt/code-api/index.ts && echo written > out.txt && id -u", workspaceDir: privateWorkspace, mounts: [{ hostPath: path.join(hidden, "api"), sandboxPath: "/mnt/code-api" }] });
    expect(result.error, result.stderr).toBeUndefined();
    expect(result.stdout).toBe("export {};\n1000\n");
    expect(fs.readFileSync(path.join(privateWorkspace, "out.txt"), "utf8")).toBe("written\n");
    expect(fs.statSync(path.join(privateWorkspace, "out.txt")).uid).toBe(65534); // written as the unprivileged sandbox user
  });

  it("starts programs in the workspace, and reports durations", async () => {
    const result = await fixture.executor.run({ language: "shell", source: "pwd; echo $HOME; id -un", workspaceDir: workspace });
    expect(result.stdout).toBe("/mnt/user-data/workspace\n/mnt/user-data/workspace\nsandbox\n");
    expect(result.durationMs).toBeGreaterThan(0);
  });
});

describe("requests rejected before anything starts (run never throws)", () => {
  let fixture: SandboxFixture;
  let workspace: string;
  beforeAll(() => {
    fixture = sandboxFixture();
    workspace = fixture.workspace("requests");
  });
  afterAll(() => fixture.cleanup());

  const base = (): SandboxRequest => ({ language: "shell", source: "true", workspaceDir: workspace });
  it.each<[string, (request: SandboxRequest) => unknown, string, string]>([
    ["an unknown language", (r) => ({ ...r, language: "ruby" }), "VALIDATION_FAILED", 'language: expected one of javascript, python, shell, got "ruby"'],
    ["a source that is not a string", (r) => ({ ...r, source: 42 }), "VALIDATION_FAILED", "source: expected a string, got number"],
    ["a NUL in the source", (r) => ({ ...r, source: "echo \0" }), "VALIDATION_FAILED", "source: must not contain NUL"],
    ["a missing workspace", (r) => ({ ...r, workspaceDir: "/nonexistent/workspace" }), "INVALID_PATH", "workspaceDir: /nonexistent/workspace does not exist"],
    ["a relative workspace", (r) => ({ ...r, workspaceDir: "workspace" }), "INVALID_PATH", 'workspaceDir: expected an absolute host path, got "workspace"'],
    ["a mount over the system", (r) => ({ ...r, mounts: [{ hostPath: workspace, sandboxPath: "/usr/lib/evil" }] }), "INVALID_PATH", "overlaps /usr"],
    ["a mount over the workspace", (r) => ({ ...r, mounts: [{ hostPath: workspace, sandboxPath: "/mnt/user-data" }] }), "INVALID_PATH", "overlaps /mnt/user-data/workspace"],
    ["a relative mount target", (r) => ({ ...r, mounts: [{ hostPath: workspace, sandboxPath: "mnt/x" }] }), "INVALID_PATH", "expected a normalized absolute path"],
    ["a mount target with ..", (r) => ({ ...r, mounts: [{ hostPath: workspace, sandboxPath: "/mnt/../etc" }] }), "INVALID_PATH", "expected a normalized absolute path"],
    ["a missing mount source", (r) => ({ ...r, mounts: [{ hostPath: "/nonexistent/api", sandboxPath: "/mnt/code-api" }] }), "INVALID_PATH", "mounts[0].hostPath: /nonexistent/api does not exist"],
    ["a mount used twice", (r) => ({ ...r, mounts: [{ hostPath: workspace, sandboxPath: "/mnt/a" }, { hostPath: workspace, sandboxPath: "/mnt/a" }] }), "INVALID_PATH", "mounted twice"],
    ["a bad variable name", (r) => ({ ...r, env: { "BAD-NAME": "x" } }), "VALIDATION_FAILED", '"BAD-NAME" is not a valid variable name'],
    ["a variable that is not a string", (r) => ({ ...r, env: { COUNT: 3 } }), "VALIDATION_FAILED", "env.COUNT: expected a string, got number"],
    ["a zero timeout", (r) => ({ ...r, timeoutMs: 0 }), "VALIDATION_FAILED", "timeoutMs: expected a number of milliseconds in (0, 300000]"],
    ["a timeout over the configured maximum", (r) => ({ ...r, timeoutMs: 301_000 }), "VALIDATION_FAILED", "got 301000"],
    ["an unknown limit", (r) => ({ ...r, limits: { disk: 1 } }), "VALIDATION_FAILED", "limits.disk: unknown limit"],
    ["a limit too small to start", (r) => ({ ...r, limits: { memoryMb: 4 } }), "VALIDATION_FAILED", "limits.memoryMb: expected an integer >= 32, got 4"],
    ["a fractional limit", (r) => ({ ...r, limits: { maxProcesses: 10.5 } }), "VALIDATION_FAILED", "limits.maxProcesses: expected an integer >= 8, got 10.5"],
  ])("rejects %s with a code and a clear message", async (_name, mutate, code, message) => {
    const result = await fixture.executor.run(mutate(base()) as SandboxRequest);
    expect(result.error?.code).toBe(code);
    expect(result.error?.message).toContain(message);
    expect(result.exitCode).toBeNull();
  });

  it("answers garbage with a result, not an exception", async () => {
    await expect(fixture.executor.run(null as unknown as SandboxRequest)).resolves.toMatchObject({ error: { code: "VALIDATION_FAILED" } });
    await expect(fixture.executor.run({ language: "shell" } as unknown as SandboxRequest)).resolves.toMatchObject({ error: { code: "VALIDATION_FAILED" } });
  });

  it("refuses to run after close", async () => {
    const other = sandboxFixture();
    await other.executor.close();
    const result = await other.executor.run({ ...base(), workspaceDir: other.workspace("late") });
    expect(result.error?.code).toBe("SANDBOX_UNAVAILABLE");
    await other.cleanup();
  });
});

// When the default backend cannot run, runs and the diagnostic say exactly what to install or enable.
import fs from "node:fs";
import path from "node:path";
import { makeTempDir, needs } from "@thinktank/testing";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { sandboxFixture } from "../test-support/sandbox-fixture.js";
import type { SandboxFixture } from "../test-support/sandbox-fixture.js";

describe("sandbox unavailable", () => {
  let fixture: SandboxFixture | undefined;
  afterEach(async () => {
    await fixture?.cleanup();
    fixture = undefined;
  });

  /** A stand-in bwrap that fails the way a host without user namespaces makes the real one fail. */
  function fakeBwrap(root: string, message: string): string {
    const script = path.join(root, "fake-bwrap");
    fs.writeFileSync(script, `#!/bin/sh\ncase "$1" in --version) echo "bubblewrap 0.8.0";; --help) echo "--disable-userns --size";; *) echo ${JSON.stringify(message)} >&2; exit 1;; esac\n`, { mode: 0o755 });
    return script;
  }

  it("names the package to install when bwrap is missing, and never falls back to no isolation", async () => {
    fixture = sandboxFixture({ executor: { bwrapCommand: "/nonexistent/bin/bwrap" } });
    const result = await fixture.executor.run({ language: "javascript", source: "console.log('ran')", workspaceDir: fixture.workspace("missing") });
    expect(result.error?.code).toBe("SANDBOX_UNAVAILABLE");
    expect(result.error?.message).toContain("apt-get install bubblewrap");
    expect(result.error?.message).toContain("sandbox.backend: local");
    expect(result.stdout).toBe("");
  });

  it.each([
    ["user namespaces disabled", "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces. On e.g. debian this can be enabled with 'sysctl kernel.unprivileged_userns_clone=1'.", "sysctl -w kernel.unprivileged_userns_clone=1"],
    ["AppArmor restricting namespaces", "bwrap: setting up uid map: Permission denied", "kernel.apparmor_restrict_unprivileged_userns=0"],
    ["no namespaces left", "bwrap: Creating new namespace failed: No space left on device", "user.max_user_namespaces"],
    ["a container forbidding namespaces", "bwrap: Creating new namespace failed: Operation not permitted", "seccomp=unconfined"],
    // What bwrap says in a Docker container run with seccomp and AppArmor unconfined but /proc still masked.
    ["a container masking /proc", "bwrap: Can't mount proc on /newroot/proc: Operation not permitted", "systempaths=unconfined"],
  ])("explains %s with the exact fix", async (_name, message, fix) => {
    const tools = makeTempDir("thinktank-fake-bwrap-");
    fs.chmodSync(tools.dir, 0o755);
    fixture = sandboxFixture({ executor: { bwrapCommand: fakeBwrap(tools.dir, message) } });
    onTestFinished(() => tools.cleanup());
    const result = await fixture.executor.run({ language: "shell", source: "echo ran", workspaceDir: fixture.workspace("fake") });
    expect(result.error?.code).toBe("SANDBOX_UNAVAILABLE");
    expect(result.error?.message).toContain(fix);
    const check = await fixture.executor.check();
    expect(check.ok).toBe(false);
    expect(check.problems[0]?.fix).toContain(fix);
    expect(check.summary).toContain(fix);
  });

  // python3 is a bubblewrap need: on deno, Python is Pyodide (checked below).
  it("names python3 when Python is missing, while the other languages still work", needs("bubblewrap"), async () => {
    fixture = sandboxFixture({ executor: { pythonCommand: "/nonexistent/python3" } });
    const workspace = fixture.workspace("nopython");
    const python = await fixture.executor.run({ language: "python", source: "print(1)", workspaceDir: workspace });
    expect(python.error?.code).toBe("SANDBOX_UNAVAILABLE");
    expect(python.error?.message).toContain("install python3");
    const check = await fixture.executor.check();
    expect(check.problems.map((problem) => problem.problem)).toEqual([expect.stringContaining("python: /nonexistent/python3 was not found")]);
    expect(check.details.javascript).toMatch(/^works/);
  });

  it("on the deno backend Python needs no python3: it runs in Pyodide", async () => {
    fixture = sandboxFixture({ backend: "deno", executor: { pythonCommand: "/nonexistent/python3" } });
    const python = await fixture.executor.run({ language: "python", source: "print(1)", workspaceDir: fixture.workspace("pyodide"), timeoutMs: 60_000 });
    expect(python.error, python.stderr).toBeUndefined();
    expect(python.stdout).toBe("1\n");
  });
});

describe("sandbox diagnostic on a working host", needs("bubblewrap"), () => {
  it("reports every language working, with the tools it found", async () => {
    const fixture = sandboxFixture();
    try {
      const check = await fixture.executor.check();
      expect(check.problems).toEqual([]);
      expect(check.ok).toBe(true);
      expect(check.isolated).toBe(true);
      expect(check.summary).toMatch(/^bubblewrap sandbox works/);
      expect(check.details).toMatchObject({ shell: expect.stringMatching(/^works/), javascript: expect.stringMatching(/^works/), python: expect.stringMatching(/^works/) });
    } finally {
      await fixture.cleanup();
    }
  });
});

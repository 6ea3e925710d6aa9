// sandbox.backend: auto picks bubblewrap where a real bubblewrap sandbox starts, else deno (which npm
// install brings), and says why; a named backend is used as named, never switched.
import fs from "node:fs";
import path from "node:path";
import { loadConfig } from "@thinktank/core";
import { makeTempDir, needs } from "@thinktank/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { backendLine } from "./select-launcher.js";
import { sandboxFixture } from "../test-support/sandbox-fixture.js";

/** A stand-in bwrap that fails as the real one does in a Docker container whose /proc is masked. */
function refusingBwrap(dir: string): string {
  const script = path.join(dir, "bwrap");
  fs.writeFileSync(script, `#!/bin/sh\ncase "$1" in --version) echo "bubblewrap 0.8.0";; --help) echo "--disable-userns --size";; *) echo "bwrap: Can't mount proc on /newroot/proc: Operation not permitted" >&2; exit 1;; esac\n`, { mode: 0o755 });
  return script;
}

describe("backend selection", () => {
  it("is auto unless config.yaml names one, and local only when named", async () => {
    const temp = makeTempDir();
    onTestFinished(() => temp.cleanup());
    expect(loadConfig({ cwd: temp.dir, env: {} }).sandbox.backend).toBe("auto");
    for (const backend of ["bubblewrap", "deno", "local"]) {
      fs.writeFileSync(path.join(temp.dir, "config.yaml"), `sandbox:\n  backend: ${backend}\n`);
      expect(loadConfig({ cwd: temp.dir, env: {} }).sandbox.backend).toBe(backend);
    }
  });

  it("auto without bubblewrap runs programs on deno, and says why", async () => {
    const fixture = sandboxFixture({ backend: "auto", executor: { bwrapCommand: "/nonexistent/bin/bwrap" } });
    onTestFinished(() => fixture.cleanup());
    const result = await fixture.executor.run({ language: "javascript", source: "console.log(typeof Deno)", workspaceDir: fixture.workspace("auto"), timeoutMs: 60_000 });
    expect(result.error, result.stderr).toBeUndefined();
    expect(result.stdout).toBe("object\n");
    const info = await fixture.executor.describeBackend();
    expect(info).toMatchObject({ configured: "auto", backend: "deno", isolated: true });
    expect(info.fallback).toContain("apt-get install bubblewrap");
    expect(fixture.executor.backend).toBe("deno");
    expect(backendLine(info)).toMatch(/^sandbox: deno \(sandbox.backend: auto; bubblewrap is not usable here: .*\); isolates: Deno permissions.*; memory: per process \(deno is one process/);
  });

  it("auto with a working bubblewrap runs programs there", needs("bubblewrap"), async () => {
    const fixture = sandboxFixture({ backend: "auto" });
    onTestFinished(() => fixture.cleanup());
    const result = await fixture.executor.run({ language: "shell", source: "cat /etc/passwd", workspaceDir: fixture.workspace("auto"), timeoutMs: 60_000 });
    expect(result.stdout).toContain("sandbox:x:1000:1000");
    expect(await fixture.executor.describeBackend()).toEqual({
      configured: "auto",
      backend: "bubblewrap",
      isolated: true,
      isolation: expect.stringContaining("namespaces"),
      memory: { mode: expect.stringMatching(/^(cgroup-v2|cgroup-v1|per-process)$/), description: expect.stringMatching(/^per (execution|process) \(/) },
    });
  });

  it("auto without bubblewrap installed falls back quietly: no warning", async () => {
    const fixture = sandboxFixture({ backend: "auto", executor: { bwrapCommand: "/nonexistent/bin/bwrap" } });
    onTestFinished(() => fixture.cleanup());
    const info = await fixture.executor.describeBackend();
    expect(info.backend).toBe("deno");
    expect(info.warning).toBeUndefined();
  });

  // The Docker case: the image installs bubblewrap, the container masks /proc, and bwrap fails; the
  // stand-in prints what the real one printed there (docker-compose.yml without systempaths=unconfined).
  it("auto with bubblewrap installed but refused falls back to deno with a warning that names bwrap's error and the Docker fix", async () => {
    const tools = makeTempDir("thinktank-fake-bwrap-");
    onTestFinished(() => tools.cleanup());
    fs.chmodSync(tools.dir, 0o755);
    const fixture = sandboxFixture({ backend: "auto", executor: { bwrapCommand: refusingBwrap(tools.dir) } });
    onTestFinished(() => fixture.cleanup());
    const info = await fixture.executor.describeBackend();
    expect(info).toMatchObject({ configured: "auto", backend: "deno" });
    expect(info.fallback).toContain("systempaths=unconfined");
    expect(info.warning).toBe(
      "bubblewrap is installed but cannot start a sandbox here (bwrap: Can't mount proc on /newroot/proc: Operation not permitted), so execute_code and bash run on the weaker deno backend (Python in Pyodide, shell simulated by just-bash); the agent's start-up log says why and how to fix it (in Docker, the agent's service needs security_opt seccomp:unconfined, apparmor:unconfined and systempaths=unconfined)",
    );
    expect(info.warning).not.toContain(tools.dir);
  });

  it("a named bubblewrap that cannot start a sandbox says so when described, with the same warning, and stays bubblewrap", async () => {
    const tools = makeTempDir("thinktank-fake-bwrap-");
    onTestFinished(() => tools.cleanup());
    fs.chmodSync(tools.dir, 0o755);
    const fixture = sandboxFixture({ backend: "bubblewrap", executor: { bwrapCommand: refusingBwrap(tools.dir) } });
    onTestFinished(() => fixture.cleanup());
    const info = await fixture.executor.describeBackend();
    expect(info.backend).toBe("bubblewrap");
    expect(info.problem).toContain("Can't mount proc");
    expect(info.warning).toMatch(/^sandbox.backend is bubblewrap, but bubblewrap cannot start a sandbox here \(bwrap: Can't mount proc .*\), so execute_code and bash fail with SANDBOX_UNAVAILABLE; .*systempaths=unconfined\)$/);
  });

  it("a named bubblewrap that works has no problem and no warning", needs("bubblewrap"), async () => {
    const fixture = sandboxFixture({ backend: "bubblewrap" });
    onTestFinished(() => fixture.cleanup());
    const info = await fixture.executor.describeBackend();
    expect(info.problem).toBeUndefined();
    expect(info.warning).toBeUndefined();
  });

  it("a named bubblewrap that cannot run fails with the fix and never falls back to deno", async () => {
    const fixture = sandboxFixture({ backend: "bubblewrap", executor: { bwrapCommand: "/nonexistent/bin/bwrap" } });
    onTestFinished(() => fixture.cleanup());
    const result = await fixture.executor.run({ language: "javascript", source: "console.log('ran')", workspaceDir: fixture.workspace("named"), timeoutMs: 60_000 });
    expect(result.error?.code).toBe("SANDBOX_UNAVAILABLE");
    expect(result.stdout).toBe("");
    expect((await fixture.executor.describeBackend()).backend).toBe("bubblewrap");
  });

  it("deno without its npm packages answers SANDBOX_UNAVAILABLE with npm install as the fix", async () => {
    const fixture = sandboxFixture({ backend: "deno", executor: { denoRuntime: { deno: undefined, pyodideDir: undefined, justBashDir: undefined } } });
    onTestFinished(() => fixture.cleanup());
    for (const language of ["javascript", "python", "shell"] as const) {
      const result = await fixture.executor.run({ language, source: "", workspaceDir: fixture.workspace("missing") });
      expect(result.error?.code).toBe("SANDBOX_UNAVAILABLE");
      expect(result.error?.message).toContain("npm install");
    }
  });
});

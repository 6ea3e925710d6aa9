// sandbox.backend: auto picks bubblewrap where a real bubblewrap sandbox starts, else deno (which npm
// install brings), and says why; a named backend is used as named, never switched.
import fs from "node:fs";
import path from "node:path";
import { loadConfig } from "@thinktank/core";
import { makeTempDir, needs } from "@thinktank/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { backendLine } from "./select-launcher.js";
import { sandboxFixture } from "../test-support/sandbox-fixture.js";

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

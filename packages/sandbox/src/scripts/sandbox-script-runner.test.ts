// The script runner never runs an untrusted script unisolated: on `sandbox.backend: local` it refuses.
import fs from "node:fs";
import path from "node:path";
import { writeTree } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxFixture, type SandboxFixture } from "../test-support/sandbox-fixture.js";
import { createSandboxScriptRunner } from "./sandbox-script-runner.js";

describe("the script runner on the local backend", () => {
  let fixture: SandboxFixture;
  beforeAll(() => {
    fixture = sandboxFixture({ backend: "local" });
  });
  afterAll(() => fixture.cleanup());

  it("refuses every runtime, and a call runs nothing", async () => {
    const skillDir = path.join(fixture.root, "skill");
    const marker = path.join(fixture.root, "ran");
    writeTree(skillDir, { "scripts/tool.py": `open(${JSON.stringify(marker)}, "w").write("x")\nprint("{}")\n` });
    const runner = createSandboxScriptRunner(fixture.executor, { workRoot: path.join(fixture.root, "runs") });
    for (const runtime of ["python", "node", "shell"] as const) {
      expect(await runner.supports(runtime)).toEqual({ ok: false, reason: expect.stringContaining("sandbox.backend is local, which isolates nothing") });
    }
    const outcome = await runner.run({
      toolName: "tool",
      runtime: "python",
      scriptPath: path.join(fs.realpathSync(skillDir), "scripts", "tool.py"),
      folder: { hostDir: skillDir, sandboxDir: "/mnt/skills/custom/skill" },
      input: "{}",
      env: {},
      timeoutMs: 10_000,
      network: [],
      maxStdoutBytes: 65_536,
      stderrTailBytes: 4096,
    });
    expect(outcome).toMatchObject({ kind: "sandbox-failed", code: "SANDBOX_UNAVAILABLE" });
    expect(fs.existsSync(marker)).toBe(false);
  });
});

// The script runner never runs an untrusted script unisolated: on `sandbox.backend: local` it refuses;
// on an isolating backend its outcome carries the egress connections the script made.
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

describe("the script runner's outcome", () => {
  let fixture: SandboxFixture;
  beforeAll(() => {
    fixture = sandboxFixture({ backend: "deno" });
  });
  afterAll(() => fixture.cleanup());

  it("carries the egress connections the script made, refused ones too, whatever the call's ending (deno: on every machine)", { timeout: 120_000 }, async () => {
    const skillDir = path.join(fixture.root, "skill");
    // Asks the proxy for a declared name that resolves to loopback, then exits non-zero.
    writeTree(skillDir, { "scripts/tool.js": `fetch("http://localhost:9/").then((r) => r.text().then((t) => { console.log(JSON.stringify({ status: r.status, text: t })); process.exit(3); }));\n` });
    const runner = createSandboxScriptRunner(fixture.executor, { workRoot: path.join(fixture.root, "runs") });
    const outcome = await runner.run({
      toolName: "fetcher",
      runtime: "node",
      scriptPath: path.join(fs.realpathSync(skillDir), "scripts", "tool.js"),
      folder: { hostDir: skillDir, sandboxDir: "/mnt/skills/custom/skill" },
      input: "{}",
      env: {},
      timeoutMs: 60_000,
      network: ["localhost:9"],
      maxStdoutBytes: 65_536,
      stderrTailBytes: 4096,
    });
    expect(outcome).toMatchObject({ kind: "exited", exitCode: 3, stdout: expect.stringContaining('"status":403') });
    expect(outcome.network).toEqual({
      connections: [expect.objectContaining({ kind: "http", host: "localhost", port: 9, address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/), allowed: false, status: 403, reason: expect.stringContaining("resolves to loopback") })],
      omitted: 0,
    });
  });
});

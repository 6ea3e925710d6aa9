// Writable extra mounts (e.g. /mnt/user-data/outputs): the sandbox writes there and the host sees it;
// read-only mounts stay read-only; folders the sandbox user cannot be given are refused.
import fs from "node:fs";
import path from "node:path";
import { needs } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxMount } from "../sandbox-types.js";
import { sandboxFixture } from "../test-support/sandbox-fixture.js";
import type { SandboxFixture } from "../test-support/sandbox-fixture.js";

const asRoot = process.getuid?.() === 0;

describe("writable mounts in the bubblewrap sandbox", needs("bubblewrap"), () => {
  let fixture: SandboxFixture;
  let workspace: string;
  let outputs: string;
  let uploads: string;

  beforeAll(() => {
    fixture = sandboxFixture();
    workspace = fixture.workspace("thread-w");
    // Below a 0700 folder, as the agent's data dir may be: bubblewrap must still reach it when dropped to the sandbox user.
    const userData = path.join(fixture.root, "user-data");
    fs.mkdirSync(userData, { mode: 0o700 });
    outputs = path.join(userData, "outputs");
    uploads = path.join(userData, "uploads");
    fs.mkdirSync(outputs);
    fs.mkdirSync(uploads);
    fs.writeFileSync(path.join(uploads, "input.csv"), "a,b\n");
    // Written by the host before the first run (as the agent's write_file does): the sandbox may change it too.
    fs.writeFileSync(path.join(outputs, "draft.md"), "draft\n");
  });

  afterAll(async () => {
    await fixture.cleanup();
  });

  const run = (source: string, mounts: readonly SandboxMount[]) => fixture.executor.run({ language: "shell", source, workspaceDir: workspace, mounts, timeoutMs: 60_000 });
  const userMounts = (): SandboxMount[] => [
    { hostPath: uploads, sandboxPath: "/mnt/user-data/uploads" },
    { hostPath: outputs, sandboxPath: "/mnt/user-data/outputs", writable: true },
  ];

  it("writes into a writable mount and the host sees it; a read-only mount beside it stays read-only", async () => {
    const source = [
      "echo report > /mnt/user-data/outputs/report.txt && echo 'outputs ok'",
      "echo more >> /mnt/user-data/outputs/draft.md && echo 'draft ok'",
      "mkdir -p /mnt/user-data/outputs/charts/q1 && echo bar > /mnt/user-data/outputs/charts/q1/bar.svg && echo 'nested ok'",
      "cat /mnt/user-data/uploads/input.csv",
      "for target in /mnt/user-data/uploads/evil.txt /mnt/user-data/uploads/input.csv /mnt/user-data/evil.txt; do",
      '  if ( : >> "$target" ) 2>/dev/null; then echo "WROTE $target"; else echo "denied $target"; fi',
      "done",
    ].join("\n");
    const result = await run(source, userMounts());
    expect(result.error, result.stderr).toBeUndefined();
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain("outputs ok\ndraft ok\nnested ok\na,b\n");
    expect(result.stdout).not.toContain("WROTE");
    expect(result.stdout.match(/^denied /gm)).toHaveLength(3);
    expect(fs.readFileSync(path.join(outputs, "report.txt"), "utf8")).toBe("report\n");
    expect(fs.readFileSync(path.join(outputs, "draft.md"), "utf8")).toBe("draft\nmore\n");
    expect(fs.readFileSync(path.join(outputs, "charts/q1/bar.svg"), "utf8")).toBe("bar\n");
    expect(fs.readdirSync(uploads)).toEqual(["input.csv"]);
    expect(fs.readFileSync(path.join(uploads, "input.csv"), "utf8")).toBe("a,b\n");
  });

  it.runIf(asRoot)("hands a root-owned folder (and what root wrote in it) to the sandbox user, as it does the workspace", async () => {
    const result = await run("echo again >> /mnt/user-data/outputs/draft.md", userMounts());
    expect(result.exitCode, result.stderr).toBe(0);
    expect(fs.statSync(outputs).uid).toBe(65534);
    expect(fs.statSync(path.join(outputs, "draft.md")).uid).toBe(65534);
    expect(fs.statSync(uploads).uid).toBe(0); // read-only mounts are left as they are
  });

  it.runIf(asRoot)("refuses a writable folder that belongs to another user, and leaves it alone", async () => {
    const foreign = path.join(fixture.root, "foreign");
    fs.mkdirSync(foreign);
    fs.chownSync(foreign, 4242, 4242);
    const result = await run("echo hi > /mnt/out/x", [{ hostPath: foreign, sandboxPath: "/mnt/out", writable: true }]);
    expect(result.error?.code).toBe("INVALID_PATH");
    expect(result.error?.message).toContain("owned by uid 4242");
    expect(fs.statSync(foreign).uid).toBe(4242);
    expect(fs.readdirSync(foreign)).toEqual([]);
  });

  it.runIf(!asRoot)("refuses a writable folder the host user cannot write", async () => {
    const locked = path.join(fixture.root, "locked");
    fs.mkdirSync(locked, { mode: 0o555 });
    const result = await run("echo hi > /mnt/out/x", [{ hostPath: locked, sandboxPath: "/mnt/out", writable: true }]);
    expect(result.error?.code).toBe("INVALID_PATH");
    expect(result.error?.message).toContain("not writable");
  });

  it("refuses a writable mount of a file, of a missing path, and a writable flag that is not a boolean", async () => {
    const file = path.join(uploads, "input.csv");
    const ofFile = await run("true", [{ hostPath: file, sandboxPath: "/mnt/out", writable: true }]);
    expect(ofFile.error).toMatchObject({ code: "INVALID_PATH", message: expect.stringContaining("mounts[0].hostPath: a writable mount must be a folder") });
    const missing = await run("true", [{ hostPath: path.join(fixture.root, "nope"), sandboxPath: "/mnt/out", writable: true }]);
    expect(missing.error).toMatchObject({ code: "INVALID_PATH", message: expect.stringContaining("does not exist") });
    const notBoolean = await run("true", [{ hostPath: outputs, sandboxPath: "/mnt/out", writable: "yes" as unknown as boolean }]);
    expect(notBoolean.error).toMatchObject({ code: "VALIDATION_FAILED", message: 'mounts[0].writable: expected true or false, got "yes"' });
    // A read-only mount of a file is still fine.
    const readOnlyFile = await run("cat /mnt/input.csv", [{ hostPath: file, sandboxPath: "/mnt/input.csv" }]);
    expect(readOnlyFile.stdout).toBe("a,b\n");
  });
});

describe("writable mounts on the deno backend", () => {
  it("the simulated shell writes into a writable mount, changing what the host wrote there first; a read-only mount stays read-only", async () => {
    const fixture = sandboxFixture({ backend: "deno" });
    try {
      const outputs = path.join(fixture.root, "outputs");
      const uploads = path.join(fixture.root, "uploads");
      fs.mkdirSync(outputs);
      fs.mkdirSync(uploads);
      fs.writeFileSync(path.join(uploads, "input.csv"), "a,b\n");
      // As the agent's write_file does before the first bash call: as root, the sandbox user is given it too.
      fs.writeFileSync(path.join(outputs, "draft.md"), "draft\n");
      const source = [
        "echo more >> /mnt/user-data/outputs/draft.md && echo 'draft ok'",
        "mkdir -p /mnt/user-data/outputs/charts && echo bar > /mnt/user-data/outputs/charts/bar.svg && echo 'nested ok'",
        'if ( echo x >> /mnt/user-data/uploads/input.csv ) 2>/dev/null; then echo WROTE; else echo denied; fi',
      ].join("\n");
      const mounts = [
        { hostPath: uploads, sandboxPath: "/mnt/user-data/uploads" },
        { hostPath: outputs, sandboxPath: "/mnt/user-data/outputs", writable: true },
      ];
      const result = await fixture.executor.run({ language: "shell", source, workspaceDir: fixture.workspace("thread-d"), mounts, timeoutMs: 60_000 });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout).toBe("draft ok\nnested ok\ndenied\n");
      expect(fs.readFileSync(path.join(outputs, "draft.md"), "utf8")).toBe("draft\nmore\n");
      expect(fs.readFileSync(path.join(outputs, "charts/bar.svg"), "utf8")).toBe("bar\n");
      expect(fs.readFileSync(path.join(uploads, "input.csv"), "utf8")).toBe("a,b\n");
      if (asRoot) expect(fs.statSync(path.join(outputs, "draft.md")).uid).toBe(65534);
    } finally {
      await fixture.cleanup();
    }
  });
});

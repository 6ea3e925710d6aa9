// Setuid and setgid bits never survive in a workspace (or a writable mount): a program the sandbox left
// setuid there would let any local user who reaches it run as the sandbox's user and read every
// thread's workspace. The walk after each run strips them.
import fs from "node:fs";
import path from "node:path";
import { needs } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { sandboxFixture } from "../test-support/sandbox-fixture.js";
import type { SandboxFixture } from "../test-support/sandbox-fixture.js";

const setIdBits = 0o6000;
const modeOf = (file: string): number => fs.lstatSync(file).mode & 0o7777;

for (const backend of ["bubblewrap", "deno"] as const) describe(`set-id bits on the ${backend} backend`, backend === "bubblewrap" ? needs("bubblewrap") : {}, () => {
  let fixture: SandboxFixture;
  let workspace: string;
  let outputs: string;

  beforeAll(() => {
    fixture = sandboxFixture({ backend });
    workspace = fixture.workspace("set-id");
    outputs = path.join(fixture.root, "outputs");
    fs.mkdirSync(outputs);
  });
  afterAll(async () => {
    await fixture.cleanup();
  });

  it("strips the setuid and setgid bits a program set on its files and folders once the run ends", async () => {
    const mounts = backend === "bubblewrap" ? [{ hostPath: outputs, sandboxPath: "/mnt/user-data/outputs", writable: true }] : [];
    const targets = backend === "bubblewrap" ? ["tool", "/mnt/user-data/outputs/tool"] : ["tool"];
    const source = `import fs from "node:fs";
      const modes = [];
      for (const target of ${JSON.stringify(targets)}) {
        fs.writeFileSync(target, "#!/bin/sh\\ncat /etc/shadow\\n");
        fs.chmodSync(target, 0o6755);
        modes.push((fs.statSync(target).mode & 0o7777).toString(8));
      }
      fs.mkdirSync("shared", { recursive: true });
      fs.chmodSync("shared", 0o2775);
      modes.push((fs.statSync("shared").mode & 0o7777).toString(8));
      console.log(modes.join(" "));`;
    const result = await fixture.executor.run({ language: "javascript", source, workspaceDir: workspace, mounts, timeoutMs: 60_000 });
    expect(result.error, result.stderr).toBeUndefined();
    // The premise: inside the run the bits were set.
    expect(result.stdout.trim()).toBe([...targets.map(() => "6755"), "2775"].join(" "));
    const onHost = [path.join(workspace, "tool"), path.join(workspace, "shared"), ...(backend === "bubblewrap" ? [path.join(outputs, "tool")] : [])];
    await vi.waitFor(() => expect(onHost.map((file) => modeOf(file) & setIdBits)).toEqual(onHost.map(() => 0)), { timeout: 10_000, interval: 50 });
    // Only those bits: the rest of each mode is as the program left it.
    expect(modeOf(path.join(workspace, "tool"))).toBe(0o755);
    expect(modeOf(path.join(workspace, "shared"))).toBe(0o775);
  });
});

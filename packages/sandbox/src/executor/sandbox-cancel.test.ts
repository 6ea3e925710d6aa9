// Cancelling a run through its AbortSignal: the program and everything it started are killed, and
// run() resolves with CANCELLED only once they are gone (on both backends).
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { needs } from "@thinktank/testing";
import { processesWithMarker, sandboxFixture } from "../test-support/sandbox-fixture.js";
import type { SandboxFixture } from "../test-support/sandbox-fixture.js";

for (const backend of ["bubblewrap", "local"] as const) describe(`cancelling a ${backend} run`, backend === "bubblewrap" ? needs("bubblewrap") : {}, () => {
  let fixture: SandboxFixture;
  let workspace: string;

  beforeAll(() => {
    fixture = sandboxFixture({ backend });
    workspace = fixture.workspace("cancel");
  });
  afterAll(() => fixture?.cleanup());

  it("kills the program and its children, and resolves CANCELLED once they are gone", async () => {
    const marker = `${process.pid}${Date.now() % 100_000}`;
    const controller = new AbortController();
    const source = `sh -c 'sleep 30.${marker}1' & sleep 30.${marker}2; echo never`;
    const running = fixture.executor.run({ language: "shell", source, workspaceDir: workspace, timeoutMs: 60_000, signal: controller.signal });
    await expect.poll(() => processesWithMarker(`30.${marker}`).length, { timeout: 15_000, interval: 25 }).toBeGreaterThanOrEqual(2);
    const abortedAt = Date.now();
    controller.abort();
    const result = await running;
    // Gone the moment run() resolves: no grace period to wait out.
    expect(processesWithMarker(`30.${marker}`)).toEqual([]);
    expect(Date.now() - abortedAt).toBeLessThan(5_000);
    expect(result.error?.code).toBe("CANCELLED");
    expect(result.exitCode).toBeNull();
    expect(result.timedOut).toBe(false);
    expect(result.stdout).not.toContain("never");
  });

  it("does not start a program whose signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await fixture.executor.run({ language: "shell", source: "echo started > started.txt", workspaceDir: workspace, signal: controller.signal });
    expect(result.error?.code).toBe("CANCELLED");
    expect(result.stdout).toBe("");
    expect(fs.existsSync(path.join(workspace, "started.txt"))).toBe(false);
  });
});

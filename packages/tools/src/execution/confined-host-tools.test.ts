import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { HostConfinement, type HostMechanism } from "@thinktank/core";
import { hostProbeScript, needs, processesWithMarker, type HostProbeReport } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../test-support/process-state.js";
import { createToolsFixture, type ToolsFixture } from "../test-support/tools-fixture.js";
import { ToolExecutor } from "./tool-executor.js";

// A trusted (registered) script tool runs on the host, confined: it may read host files, but never the
// service's environment, memory or data folder, and nothing it starts outlives its call. Each mechanism
// this machine offers runs the same checks: bubblewrap, and unshare when the tests run as root.
const asRoot = process.getuid?.() === 0;
const searchPath = process.env.PATH ?? "/usr/bin:/bin";
const secret = `service-secret-${crypto.randomUUID()}`;
const marker = (): string => `181.${Date.now() % 1e9}${crypto.randomInt(1e6)}`;

let fixture: ToolsFixture | undefined;
let neighbour: ChildProcess | undefined;
afterEach(() => {
  neighbour?.kill("SIGKILL");
  fixture?.cleanup();
});

function confinedFixture(mechanism: HostMechanism): { fixture: ToolsFixture; data: string; outside: string } {
  const made = createToolsFixture();
  fs.chmodSync(made.dir, 0o755);
  const data = path.join(made.dir, "data");
  fs.mkdirSync(data, { mode: 0o700 });
  fs.writeFileSync(path.join(data, "threads.sqlite"), "rows");
  const outside = path.join(made.dir, "host-notes.txt");
  fs.writeFileSync(outside, "host notes");
  const hostConfinement = new HostConfinement({ hide: [data, made.file], mechanisms: [mechanism], searchPath });
  // The same registry and log, with an executor that confines as the service would.
  fixture = { ...made, executor: new ToolExecutor({ registry: made.registry, log: made.log, searchPath, workRoot: path.join(made.dir, "work"), hostConfinement }) };
  // A process of the service's user with a secret in its environment, as the agent is.
  neighbour = spawn("sleep", ["300"], { env: { PATH: searchPath, THINKTANK_API_KEY: secret }, stdio: "ignore" });
  return { fixture, data, outside };
}

const mechanisms: { mechanism: HostMechanism; available: boolean }[] = [
  { mechanism: "bubblewrap", available: true },
  { mechanism: "unshare", available: asRoot },
];

describe.each(mechanisms)("a trusted host tool confined with $mechanism", ({ mechanism, available }) => {
  const options = mechanism === "bubblewrap" ? needs("bubblewrap") : {};

  it.skipIf(!available)("reads a host file but not the service's environment, memory or data folder; what it left is gone after the call", options, async () => {
    const { fixture, data, outside } = confinedFixture(mechanism);
    await fixture.registry.register({ definition: { name: "probe", description: "probe", input_schema: { type: "object" }, runtime: "python", script: hostProbeScript } });
    const left = marker();
    const response = await fixture.executor.invoke("probe", { needle: secret, ptrace: [process.pid, neighbour?.pid], read: [outside, data, path.join(data, "threads.sqlite"), fixture.file], leave: left });
    if (response.status !== "success") throw new Error(JSON.stringify(response));
    const report = response.data as HostProbeReport;
    expect(report.reads[outside]).toEqual({ ok: true, bytes: 10 });
    expect(report.needleFoundIn).toEqual([]);
    expect(report.visiblePids).not.toContain(process.pid);
    expect(Object.values(report.ptrace)).not.toContain("attached");
    expect(report.reads[data]).toEqual({ ok: true, entries: [] });
    expect(report.reads[path.join(data, "threads.sqlite")]?.ok).toBe(false);
    expect(report.reads[fixture.file]).toMatchObject({ bytes: 0 });
    expect(await eventually(() => processesWithMarker(left).length === 0)).toBe(true);
  });

  it.skipIf(!available)("kills what it started, setsid and double-forked, on timeout and on cancel", options, async () => {
    const { fixture } = confinedFixture(mechanism);
    const script = (left: string, ready: string) => `sleep ${left} &\n(setsid sleep ${left} &)\nsetsid sleep ${left} &\ntouch ${ready}\nwait\n`;
    const onTimeout = marker();
    const readyTimeout = path.join(fixture.dir, "ready-timeout");
    await fixture.registry.register({ definition: { name: "stuck", description: "stuck", input_schema: { type: "object" }, runtime: "shell", script: script(onTimeout, readyTimeout), timeout: 1 } });
    const timedOut = await fixture.executor.invoke("stuck", {});
    expect(timedOut).toMatchObject({ status: "error", error: { code: "TIMEOUT" } });
    expect(fs.existsSync(readyTimeout)).toBe(true);
    expect(await eventually(() => processesWithMarker(onTimeout).length === 0)).toBe(true);

    const onCancel = marker();
    const readyCancel = path.join(fixture.dir, "ready-cancel");
    await fixture.registry.register({ definition: { name: "cancelled", description: "cancelled", input_schema: { type: "object" }, runtime: "shell", script: script(onCancel, readyCancel), timeout: 60 } });
    const controller = new AbortController();
    const call = fixture.executor.invoke("cancelled", {}, { signal: controller.signal });
    expect(await eventually(() => fs.existsSync(readyCancel) && processesWithMarker(onCancel).length === 3, 30_000)).toBe(true);
    controller.abort();
    expect(await call).toMatchObject({ status: "error", error: { code: "CANCELLED" } });
    expect(await eventually(() => processesWithMarker(onCancel).length === 0)).toBe(true);
  });
});

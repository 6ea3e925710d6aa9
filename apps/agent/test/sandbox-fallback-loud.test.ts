// In a Docker container whose /proc is masked (docker-compose.yml without systempaths=unconfined),
// the image's bubblewrap fails (`bwrap: Can't mount proc on /newroot/proc: Operation not permitted`)
// and `sandbox.backend: auto` ran code on deno with a line on stdout only. Here the real agent
// process finds a bwrap on its PATH that fails exactly so, and says it on stderr at start and in
// GET /healthz (status "warning"). A host with no bwrap at all still falls back quietly: see
// packages/sandbox/src/executor/backend-selection.test.ts.
import fs from "node:fs";
import path from "node:path";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { makeAgentFixture } from "./support/agent-fixture.js";
import { startAgentProcess, type AgentProcess } from "./support/agent-process.js";

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const bwrapError = "bwrap: Can't mount proc on /newroot/proc: Operation not permitted";

/** A folder with a bwrap that fails as the real one does in a container with masked /proc paths. */
function refusingBwrapFolder(): string {
  const tools = makeTempDir("tt-refusing-bwrap-");
  cleanups.push(() => tools.cleanup());
  fs.chmodSync(tools.dir, 0o755);
  fs.writeFileSync(path.join(tools.dir, "bwrap"), `#!/bin/sh\ncase "$1" in --version) echo "bubblewrap 0.8.0";; --help) echo "--disable-userns --size";; *) echo "${bwrapError}" >&2; exit 1;; esac\n`, { mode: 0o755 });
  return tools.dir;
}

async function startWith(extraConfig: string[], env: Record<string, string>): Promise<AgentProcess> {
  const made = await makeAgentFixture({ extraConfig, env });
  cleanups.push(() => made.cleanup());
  const agent = await startAgentProcess(made.env);
  cleanups.push(() => agent.stop());
  return agent;
}

describe("bubblewrap expected but refused", { timeout: 180_000 }, () => {
  it("auto: a warning on stderr at start naming bwrap's error and systempaths=unconfined, and /healthz status warning", async () => {
    const tools = refusingBwrapFolder();
    const agent = await startWith([], { PATH: `${tools}:${process.env.PATH ?? "/usr/bin:/bin"}` });
    const warning = await agent.lines.waitFor((line) => line.startsWith("thinktank agent: warning: sandbox:"), 60_000);
    expect(warning).toContain("bubblewrap is installed but cannot start a sandbox here (bwrap: Can't mount proc on /newroot/proc: Operation not permitted), so execute_code and bash run on the weaker deno backend");
    expect(warning).toContain("systempaths=unconfined");
    const health = await fetch(`${agent.url}/healthz`);
    expect(health.status).toBe(200);
    const body = (await health.json()) as { status: string; sandbox: { backend: string; warning?: string } };
    expect(body.status).toBe("warning");
    expect(body.sandbox.backend).toBe("deno");
    expect(body.sandbox.warning).toContain(bwrapError);
    // The reason in /healthz names no host path (the stand-in's folder is in the start-up log only).
    expect(JSON.stringify(body)).not.toContain(tools);
  });

  it("named (sandbox.backend: bubblewrap): the same warning, runs would fail, /healthz status warning", async () => {
    const tools = refusingBwrapFolder();
    const agent = await startWith(["sandbox:", "  backend: bubblewrap"], { PATH: `${tools}:${process.env.PATH ?? "/usr/bin:/bin"}` });
    const warning = await agent.lines.waitFor((line) => line.startsWith("thinktank agent: warning: sandbox:"), 60_000);
    expect(warning).toContain("sandbox.backend is bubblewrap, but bubblewrap cannot start a sandbox here (bwrap: Can't mount proc");
    expect(warning).toContain("Fix: this container masks parts of /proc");
    const body = (await (await fetch(`${agent.url}/healthz`)).json()) as { status: string; sandbox: { backend: string; warning?: string } };
    expect(body).toMatchObject({ status: "warning", sandbox: { backend: "bubblewrap", warning: expect.stringContaining("SANDBOX_UNAVAILABLE") } });
  });
});

import fs from "node:fs";
import { findExecutable, type SandboxBackend } from "@thinktank/core";
import { joinCgroup } from "../launch/join-cgroup.js";
import type { Launcher, LaunchPlan } from "../launch/launch-plan.js";
import { ExecutionCgroup } from "../limits/execution-cgroup.js";
import type { MemoryScope } from "../limits/memory-scope.js";
import { parseHostPattern } from "../network/host-pattern.js";
import type { RunEgress } from "../network/run-egress.js";
import { serverAvailability } from "./server-availability.js";
import type { SandboxServerLaunch, SandboxServerRequest } from "./server-types.js";

/** What the executor hands `startServer`. */
export interface StartServerContext {
  readonly launcher: Launcher;
  readonly backend: Exclude<SandboxBackend, "auto">;
  readonly memory: MemoryScope;
  readonly egress: RunEgress;
  readonly workerId: string;
  /** Where setpriv is looked up (dropping to the sandbox user without a cgroup to join first). */
  readonly searchPath: string;
  /** The executor's own folder (the workers' sockets): hidden from every server. */
  readonly runtimeDir: string;
}

/** Smallest limits a server may be given: below them no interpreter starts. */
const minimums = { memoryMb: 32, maxProcesses: 8 } as const;

/**
 * The command line of a server in the sandbox (`SandboxExecutor.startServer`): bubblewrap only; its
 * processes in a memory cgroup of their own where one is writable; its egress entrance attached to a
 * proxy session with its `network` patterns (each connection logged with `networkLabel`). Nothing
 * runs until the caller spawns the line.
 */
export async function startServer(request: SandboxServerRequest, context: StartServerContext): Promise<SandboxServerLaunch> {
  const fail = (code: "SANDBOX_UNAVAILABLE" | "VALIDATION_FAILED" | "SANDBOX_FAILED", message: string): SandboxServerLaunch => ({ ok: false, code, message });
  const availability = serverAvailability(context.backend);
  if (!availability.ok || !context.launcher.planServer) return fail("SANDBOX_UNAVAILABLE", availability.ok ? "this sandbox backend runs no server" : availability.reason);
  const network = request.network ?? [];
  for (const pattern of network) {
    const parsed = parseHostPattern(pattern);
    if ("problem" in parsed) return fail("VALIDATION_FAILED", `network: ${parsed.problem}`);
  }
  for (const [name, minimum] of Object.entries(minimums) as [keyof typeof minimums, number][]) {
    const value = request.limits[name];
    if (!Number.isInteger(value) || value < minimum) return fail("VALIDATION_FAILED", `limits.${name}: expected an integer >= ${minimum}, got ${JSON.stringify(value)}`);
  }
  try {
    fs.mkdirSync(request.homeDir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") return fail("SANDBOX_FAILED", `the server's home ${request.homeDir} could not be made: ${(error as Error).message}`);
  }
  const planned = await context.launcher.planServer({ ...request, hide: [...(request.hide ?? []), context.runtimeDir] }, context.workerId);
  if (!planned.ok) return fail(planned.code === "VALIDATION_FAILED" ? "VALIDATION_FAILED" : planned.code === "SANDBOX_UNAVAILABLE" ? "SANDBOX_UNAVAILABLE" : "SANDBOX_FAILED", planned.message);
  let plan = planned.plan;
  const { memory } = context;
  if (memory.cgroups) {
    try {
      plan = joinCgroup(plan, ExecutionCgroup.create(memory.cgroups, request.limits.memoryMb), memory.setpriv);
    } catch (error) {
      await Promise.resolve(plan.cleanup()).catch(() => undefined);
      return fail("SANDBOX_FAILED", `the server's memory cgroup could not be made under ${memory.cgroups.parentDir}: ${(error as Error).message}`);
    }
  }
  const entrance = plan.egress;
  const session = entrance ? context.egress.open(network, request.networkLabel, context.backend, { egressEnv: entrance.env, egressAuthorization: undefined }) : undefined;
  if (entrance && session) entrance.attach((socket) => session.accept(socket));
  const line = spawnLine(plan, context.searchPath);
  if (!line.ok) {
    await Promise.resolve(plan.cleanup()).catch(() => undefined);
    return fail("SANDBOX_UNAVAILABLE", line.message);
  }
  let released = false;
  const finished = plan;
  return {
    ok: true,
    command: line.command,
    args: line.args,
    env: {},
    cwd: plan.cwd,
    release: () => {
      if (released) return;
      released = true;
      session?.end();
      void Promise.resolve()
        .then(() => finished.cleanup())
        .catch(() => undefined);
    },
  };
}

/**
 * A worker's launch plan as one command line a plain spawn (the MCP SDK's, stdin and stdout as
 * pipes) can start: the files the plan passes opened as descriptors 4, 5, ... (descriptor 3, the
 * workers' job channel, is /dev/null), and a drop to the sandbox user the plan left to spawn's
 * uid and gid done with setpriv.
 */
function spawnLine(plan: LaunchPlan, searchPath: string): { ok: true; command: string; args: string[] } | { ok: false; message: string } {
  let command = plan.command;
  let args = [...plan.args];
  if (plan.uid !== undefined) {
    const setpriv = findExecutable("setpriv", searchPath);
    if (!setpriv) return { ok: false, message: "setpriv (util-linux) was not found: it drops a server to the sandbox user. Fix: apt-get install util-linux" };
    args = [`--reuid=${plan.uid}`, `--regid=${plan.gid ?? plan.uid}`, "--clear-groups", "--", command, ...args];
    command = setpriv;
  }
  const files = plan.passFiles ?? [];
  const opens = files.map((_, index) => `${4 + index}<"$${index + 1}"`).join(" ");
  const script = `exec 3</dev/null ${opens} || exit 125; shift ${files.length}; exec "$@"`;
  return { ok: true, command: "/bin/sh", args: ["-c", script, "thinktank-server", ...files, command, ...args] };
}

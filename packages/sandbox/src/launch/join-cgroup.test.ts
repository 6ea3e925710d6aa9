// How a worker's first process joins its execution's memory cgroup (memory-per-execution.test.ts runs
// whole executions): in the shell that closes inherited descriptors, before it drops to the sandbox
// user and before anything forks; a program cannot move itself out. Real processes, real cgroups.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { findExecutable } from "@thinktank/core";
import { ExecutionCgroup } from "../limits/execution-cgroup.js";
import { detectMemoryCgroups, type MemoryCgroups } from "../limits/memory-cgroups.js";
import { withInheritedFdsClosed } from "./close-inherited-fds.js";
import { joinCgroup } from "./join-cgroup.js";
import type { LaunchPlan } from "./launch-plan.js";

const asRoot = process.getuid?.() === 0;
const bash = findExecutable("bash", process.env.PATH);
const setpriv = findExecutable("setpriv", process.env.PATH);

/**
 * The program: where a forked child of it runs, who it is, its threads and descriptors, and whether it
 * could move itself back to the host process's cgroup ($1) either way.
 */
const program = `grep -E '(^0::|memory)' /proc/self/cgroup | head -n 1
id -u
ls /proc/$$/task | wc -l
if [ -e /proc/$$/fd/4 ]; then echo 4 open; else echo 4 closed; fi
if (echo 0 > "$1/tasks") 2>/dev/null || (echo $$ > "$1/cgroup.procs") 2>/dev/null; then echo moved out; else echo stayed; fi
grep -E '(^0::|memory)' /proc/self/cgroup | head -n 1`;

function planFor(command: { command: string; args: string[] }): LaunchPlan {
  return {
    ...command,
    env: {},
    cwd: "/",
    ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
    detached: false,
    baseEnv: {},
    bridge: { kind: "direct" },
    killTree: () => undefined,
    afterExit: () => undefined,
    cleanup: () => undefined,
  };
}

/** Runs a joined plan with an extra descriptor (4) it must not keep; its output lines. */
function launch(plan: LaunchPlan): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const extra = fs.openSync("/dev/null", "r");
    const child = spawn(plan.command, [...plan.args], { cwd: plan.cwd, env: { ...plan.env }, stdio: ["ignore", "pipe", "pipe", "pipe", extra] });
    fs.closeSync(extra);
    let output = "";
    let errors = "";
    child.stdout?.on("data", (chunk) => (output += chunk));
    child.stderr?.on("data", (chunk) => (errors += chunk));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(output.trim().split("\n")) : reject(new Error(`exit ${code}: ${errors}`))));
  });
}

describe("joinCgroup", () => {
  const cases: Array<[string, (base: string) => { command: string; args: string[] }, string | undefined]> = [
    ["in the bash that closes inherited descriptors (no shell in front of it)", (base) => withInheritedFdsClosed(bash, "/bin/sh", ["-c", program, "program", base]), bash],
    ["in a shell in front of a command without that prelude", (base) => ({ command: "/bin/sh", args: ["-c", program, "program", base] }), "/bin/sh"],
  ];
  it.each(cases)("joins %s, then drops to the sandbox user: what it forks is born there, and it cannot move out", async (_name, command, launcher) => {
    const detected = await detectMemoryCgroups();
    if (detected.mode === "per-process") {
      expect(detected.reason).not.toBe("");
      return;
    }
    if (!bash || (asRoot && !setpriv)) throw new Error("bash and (as root) setpriv are needed: util-linux and bash are in the CI image");
    const cgroups: MemoryCgroups = detected;
    const cgroup = ExecutionCgroup.create(cgroups, 64);
    onTestFinished(() => cgroup.remove().then(() => undefined));
    const joined = joinCgroup(planFor(command(cgroups.baseDir)), cgroup, setpriv);
    // One shell joins: the prelude's bash when there is one, so joining costs no exec of its own.
    expect(joined.command).toBe(launcher);
    expect(joined.uid).toBeUndefined();
    // cgroup v1 (tasks writable, as root): the shell moves its one thread ("0" to tasks), which skips the kernel's
    // global threadgroup lock (whose first writer after a pause waits out an RCU grace period); v2: its pid to cgroup.procs.
    if (asRoot) expect(cgroup.selfJoin).toEqual(cgroups.version === 1 ? { file: path.join(cgroup.dir, "tasks"), value: "0" } : { file: path.join(cgroup.dir, "cgroup.procs"), value: "$$" });
    expect(joined.args).toContain(cgroup.selfJoin.file);

    const [before, uid, threads, fds, moved, after] = await launch(joined);
    const inCgroup = new RegExp(`/thinktank-${process.pid}/${path.basename(cgroup.dir)}$`);
    expect(before).toMatch(inCgroup);
    expect(uid).toBe(String(asRoot ? 65534 : process.getuid?.()));
    // A one-thread process: joining with its one thread moved all of it.
    expect(threads).toBe("1");
    if (launcher === bash) expect(fds).toBe("4 closed");
    if (asRoot) {
      expect(moved).toBe("stayed");
      expect(after).toMatch(inCgroup);
    }
  });
});

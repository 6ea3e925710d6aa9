import type { ExecutionCgroup } from "../limits/execution-cgroup.js";
import { beforeClosingFds } from "./close-inherited-fds.js";
import type { LaunchPlan } from "./launch-plan.js";

/**
 * The launched process moves itself into the cgroup (see `ExecutionCgroup.selfJoin`), then execs
 * the plan's command: it is in the cgroup before anything else starts, and every process of the
 * execution (bubblewrap, the interpreter, whatever the program forks) is born there. No race:
 * nothing runs outside it first. Joining takes builtins only (the shell forks nothing before).
 */
const joinScript = (value: string): string => `echo ${value} > "$1" || exit 125; shift;`;

/**
 * A plan whose processes all run in `cgroup`. A plan that drops to the sandbox user (the host is
 * root) joins as root and then drops with setpriv, as Node's spawn would have: the cgroup's files
 * stay root's, so a sandboxed program cannot move itself out. Where the plan starts with the bash
 * prelude that closes inherited descriptors, that same shell joins (one exec fewer); else a shell
 * in front of the plan's command does.
 */
export function joinCgroup(plan: LaunchPlan, cgroup: ExecutionCgroup, setpriv: string | undefined): LaunchPlan {
  const { uid, gid, ...rest } = plan;
  let drop: string[] = [];
  if (uid !== undefined) {
    if (!setpriv) throw new Error("setpriv is needed to join a cgroup before dropping to the sandbox user");
    drop = [setpriv, `--reuid=${uid}`, `--regid=${gid ?? uid}`, "--clear-groups", "--"];
  }
  const { file, value } = cgroup.selfJoin;
  const launch = beforeClosingFds(plan, joinScript(value), [file], drop) ?? { command: "/bin/sh", args: ["-c", `${joinScript(value)} exec "$@"`, "thinktank-cgroup", file, ...drop, plan.command, ...plan.args] };
  return {
    ...rest,
    ...launch,
    oomKills: () => cgroup.oomKills(),
    cleanup: async () => {
      try {
        await cgroup.remove();
      } finally {
        await plan.cleanup();
      }
    },
  };
}

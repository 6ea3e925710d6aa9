import type { ExecutionCgroup } from "../limits/execution-cgroup.js";
import type { LaunchPlan } from "./launch-plan.js";

/**
 * The launched process writes its own pid into the cgroup, then execs the plan's command: it is in
 * the cgroup before anything else starts, and every process of the execution (bubblewrap, the
 * interpreter, whatever the program forks) is born there. No race: nothing runs outside it first.
 */
const script = `echo $$ > "$1" || exit 125; shift; exec "$@"`;

/**
 * A plan whose processes all run in `cgroup`. A plan that drops to the sandbox user (the host is
 * root) joins as root and then drops with setpriv, as Node's spawn would have: the cgroup's files
 * stay root's, so a sandboxed program cannot move itself out.
 */
export function joinCgroup(plan: LaunchPlan, cgroup: ExecutionCgroup, setpriv: string | undefined): LaunchPlan {
  const { uid, gid, ...rest } = plan;
  let drop: string[] = [];
  if (uid !== undefined) {
    if (!setpriv) throw new Error("setpriv is needed to join a cgroup before dropping to the sandbox user");
    drop = [setpriv, `--reuid=${uid}`, `--regid=${gid ?? uid}`, "--clear-groups", "--"];
  }
  return {
    ...rest,
    command: "/bin/sh",
    args: ["-c", script, "thinktank-cgroup", cgroup.procsFile, ...drop, plan.command, ...plan.args],
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

import type { PlanResult } from "./launch-plan.js";

/** What to install for each host tool the sandbox needs. */
const packages: Readonly<Record<string, string>> = {
  bwrap: "bubblewrap (`apt-get install bubblewrap` on Debian/Ubuntu, `dnf install bubblewrap` on Fedora)",
  prlimit: "util-linux (`apt-get install util-linux`)",
  unshare: "util-linux (`apt-get install util-linux`)",
  setpriv: "util-linux (`apt-get install util-linux`)",
  mount: "mount (`apt-get install mount`)",
};

/** SANDBOX_UNAVAILABLE for a tool that is not installed, saying what to install. */
export function missingTool(tool: string, searchPath: string): PlanResult {
  return {
    ok: false,
    code: "SANDBOX_UNAVAILABLE",
    message: `The bubblewrap sandbox needs \`${tool}\`, which was not found on ${searchPath}. Fix: install ${packages[tool] ?? tool}, or set sandbox.backend: local in config.yaml to run code without isolation (not recommended).`,
  };
}

/**
 * Explains why bubblewrap could not create a sandbox, from its error output, with the exact fix.
 * Returns undefined when the output is not a bubblewrap set-up error.
 */
export function diagnoseBwrapFailure(stderr: string): string | undefined {
  const line = stderr.split("\n").find((text) => text.startsWith("bwrap:"));
  if (!line) return undefined;
  const prefix = `bubblewrap could not create the sandbox (${line.trim()}).`;
  const source = /Can't find source path (.+?): /.exec(line);
  if (source) {
    return `${prefix} Fix: the sandbox user cannot reach ${source[1]}: make its parent folders searchable (chmod o+x) or move it.`;
  }
  if (/unprivileged_userns_clone|No permissions to creat/i.test(line)) {
    return `${prefix} Fix: enable unprivileged user namespaces: \`sysctl -w kernel.unprivileged_userns_clone=1\` (persist it in /etc/sysctl.d/).`;
  }
  if (/uid map|gid map|setgroups/i.test(line)) {
    return `${prefix} Fix: AppArmor restricts unprivileged user namespaces (Ubuntu 23.10+): \`sysctl -w kernel.apparmor_restrict_unprivileged_userns=0\`, or install an AppArmor profile for /usr/bin/bwrap that allows \`userns\`.`;
  }
  if (/No space left on device/i.test(line)) {
    return `${prefix} Fix: user namespaces are disabled or exhausted: \`sysctl -w user.max_user_namespaces=15000\`.`;
  }
  // Docker masks parts of /proc in every container (its `systempaths` default); the kernel then refuses
  // the fresh /proc a sandbox mounts, even with seccomp and AppArmor unconfined.
  if (/Can't mount proc/i.test(line)) {
    return `${prefix} Fix: this container masks parts of /proc, so no new /proc can be mounted in it: run it with --security-opt systempaths=unconfined beside seccomp=unconfined and apparmor=unconfined (docker-compose.yml: security_opt "systempaths=unconfined"), or run code in an already isolated container with sandbox.backend: local.`;
  }
  if (/Operation not permitted|Permission denied/i.test(line)) {
    return `${prefix} Fix: this host (often a container's seccomp or AppArmor profile) forbids creating namespaces: allow them (Docker: --security-opt seccomp=unconfined --security-opt apparmor=unconfined --security-opt systempaths=unconfined), or run code in an already isolated container with sandbox.backend: local.`;
  }
  return `${prefix} Fix: check that \`bwrap --unshare-all --ro-bind /usr /usr true\` works for this user.`;
}

import { sandboxBridgeDir, sandboxPaths } from "../sandbox-paths.js";
import { sandboxUser } from "../host/synthetic-etc.js";
import type { SandboxMount } from "../sandbox-types.js";
import type { SystemEntry } from "../host/discover-host.js";

export interface BwrapArgumentsInput {
  readonly features: { readonly disableUserns: boolean; readonly tmpfsSize: boolean };
  readonly systemEntries: readonly SystemEntry[];
  /** Host folder with the synthetic /etc. */
  readonly etcDir: string;
  /** Host folder bound read-only at /etc/alternatives, when the host has one. */
  readonly alternativesDir: string | undefined;
  /** The host's CA certificates folder, bound read-only at /etc/ssl/certs (programs that speak TLS to hosts they may reach). @default none */
  readonly caCertificatesDir?: string;
  /** Interpreter folders outside the system ones (pyenv, nvm), bound read-only at the same path. */
  readonly interpreterBinds: readonly string[];
  /** The worker's own folder (holds the bridge proxy socket), bound read-only at /run/thinktank. */
  readonly runDir: string;
  readonly workspaceDir: string;
  readonly mounts: readonly SandboxMount[];
  /** Paths inside the mounts to hide (a folder under an empty tmpfs, a file under /dev/null), at the same path inside. @default none */
  readonly covers?: { readonly folders: readonly string[]; readonly files: readonly string[] };
  /** The working folder inside. @default the workspace */
  readonly chdir?: string;
  readonly tmpMb: number;
  /** The environment the bootstrap starts with. */
  readonly env: Readonly<Record<string, string>>;
  /** Where bubblewrap should read a host path from (a staged copy when the sandbox user cannot reach it). */
  readonly sourceOf: (hostPath: string) => string;
  /** The descriptor bubblewrap reads the seccomp filter from (none: no filter). */
  readonly seccompFd?: number;
  /** The command run inside the sandbox. */
  readonly command: readonly string[];
}

/**
 * The bubblewrap command line: every namespace unshared (network, pid, ipc, uts, user, cgroup), no
 * capabilities, a read-only root holding only the system folders, a synthetic /etc, minimal /proc and
 * /dev, size-limited private /tmp and /dev/shm, the workspace read-write, the declared mounts
 * read-only unless marked writable (with the covered paths inside them hidden), and the seccomp filter of `seccompFilter` when one is passed.
 */
export function bwrapArguments(input: BwrapArgumentsInput): string[] {
  const args = ["--unshare-all", "--unshare-user", "--die-with-parent", "--new-session", "--clearenv", "--cap-drop", "ALL"];
  if (input.features.disableUserns) args.push("--disable-userns");
  args.push("--hostname", "sandbox", "--uid", String(sandboxUser.uid), "--gid", String(sandboxUser.gid));
  for (const entry of input.systemEntries) {
    if (entry.symlink) args.push("--symlink", entry.symlink, entry.path);
    else args.push("--ro-bind", input.sourceOf(entry.path), entry.path);
  }
  for (const folder of input.interpreterBinds) args.push("--ro-bind", input.sourceOf(folder), folder);
  args.push("--ro-bind", input.sourceOf(input.etcDir), "/etc");
  if (input.alternativesDir) args.push("--ro-bind", input.sourceOf(input.alternativesDir), "/etc/alternatives");
  if (input.caCertificatesDir) args.push("--ro-bind", input.sourceOf(input.caCertificatesDir), "/etc/ssl/certs");
  const sized = (mb: number): string[] => (input.features.tmpfsSize ? ["--size", String(mb * 1024 * 1024)] : []);
  args.push("--proc", "/proc", "--dev", "/dev", ...sized(input.tmpMb), "--tmpfs", "/dev/shm", "--remount-ro", "/dev");
  args.push(...sized(input.tmpMb), "--tmpfs", sandboxPaths.tmp);
  args.push("--ro-bind", input.sourceOf(input.runDir), sandboxBridgeDir);
  args.push("--bind", input.sourceOf(input.workspaceDir), sandboxPaths.workspace);
  for (const mount of input.mounts) args.push(mount.writable ? "--bind" : "--ro-bind", input.sourceOf(mount.hostPath), mount.sandboxPath);
  for (const folder of input.covers?.folders ?? []) args.push(...sized(1), "--tmpfs", folder, "--remount-ro", folder);
  for (const file of input.covers?.files ?? []) args.push("--ro-bind", "/dev/null", file);
  args.push("--remount-ro", "/", "--chdir", input.chdir ?? sandboxPaths.workspace);
  for (const [name, value] of Object.entries(input.env)) args.push("--setenv", name, value);
  if (input.seccompFd !== undefined) args.push("--seccomp", String(input.seccompFd));
  args.push("--", ...input.command);
  return args;
}

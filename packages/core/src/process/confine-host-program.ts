/** How a host program is confined: bubblewrap or (as root) unshare give it a pid namespace; setpriv a dedicated user. */
export type HostMechanism = "bubblewrap" | "unshare" | "dedicated-user";

/** A program the service starts on the host, as it would be spawned without confinement. */
export interface HostProgram {
  /** An absolute path (HostConfinement.confine resolves names on the program's PATH first). */
  readonly command: string;
  readonly args: readonly string[];
  /** The program's whole environment: nothing else reaches it. */
  readonly env: Readonly<Record<string, string>>;
  /** Its working folder (one inside a hidden folder is not reachable: the program does not start). @default the service's */
  readonly cwd?: string;
}

/** The command line to spawn instead of the program (with the program's env and cwd). */
export interface SpawnLine {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
}

/** What confineHostProgram needs besides the program: the mechanism found on this host and what to hide. */
export interface ConfinementPlan {
  readonly mechanism: HostMechanism | "none";
  /** Absolute paths of the helpers the mechanism uses. */
  readonly tools: { readonly bwrap?: string; readonly unshare?: string; readonly setpriv?: string; readonly sh?: string; readonly env?: string };
  /** Existing real folders to cover with an empty tmpfs (none inside another). */
  readonly hiddenFolders: readonly string[];
  /** Existing real files to cover with /dev/null. */
  readonly hiddenFiles: readonly string[];
  /** The service runs as root: capabilities are dropped and /dev is a minimal one (no raw disks). */
  readonly asRoot: boolean;
  /** The user `dedicated-user` runs programs as. */
  readonly dedicatedUser: { readonly uid: number; readonly gid: number };
  /** The working folder of a program that names none. */
  readonly defaultCwd: string;
}

/**
 * The unshare wrapper's outer half, run by `unshare --pid --mount` without --fork: it is the process
 * the caller started (so it gets the caller's signals, which `unshare --fork` would ignore), already
 * in the new mount namespace, and its first child is pid 1 of the new pid namespace: the inner half,
 * under `setpriv --pdeathsig KILL` so that the namespace dies with this shell however it ends. It
 * passes TERM, INT and HUP on to that pid 1 as TERM, waits for it and exits with its status (a
 * wait a passed-on signal interrupted is waited again until the shell answers 127, no such child
 * left to wait for, so the status is the child's own). It
 * forks nothing before the inner half (that child must be the namespace's first), and once it has
 * started says nothing more (a shell reports a child killed by a signal). Arguments:
 * setpriv, sh, the inner script, then the inner script's own arguments.
 */
const outerScript = `setpriv=$1 sh=$2 inner=$3; shift 3
c= f=0
trap 'f=1; if [ -n "$c" ]; then kill -TERM "$c" 2>/dev/null; fi' TERM INT HUP
exec 3<&0
"$setpriv" --pdeathsig KILL -- "$sh" -c "$inner" thinktank-confine "$@" <&3 3<&- &
c=$!
exec 3<&- 2>/dev/null
s=0; while :; do f=0; wait "$c"; t=$?; [ "$t" = 127 ] && break; s=$t; [ "$f" = 1 ] || break; done
exit $s`;

/**
 * The unshare wrapper's inner half, pid 1 of the new pid namespace (as root, before any program
 * code): it mounts the namespace's own /proc, covers the hidden folders and files, replaces /dev
 * with a minimal one (no raw disks), enters the working folder through the new mounts, and starts
 * the program with no capabilities and no_new_privs. It stays as pid 1, passing TERM, INT and HUP on
 * to the program as TERM (a pid 1 without handlers would ignore them), and when it exits the kernel
 * kills whatever the program left in the namespace. Any failure stops it before the program starts.
 * Its own commands never touch the program's stdin and stdout (an MCP server speaks over them): they
 * read /dev/null and write to stderr until the program has started, and say nothing after. The PWD
 * and OLDPWD sh exports are left out unless the program's environment had PWD. Arguments: the count
 * and paths of the folders, then of the files, the working folder, "keep-pwd" or "drop-pwd", then
 * the program.
 */
const unshareScript = `set -eu
exec 3<&0 4>&1 </dev/null >&2
mount -t proc -o nosuid,nodev,noexec proc /proc
n=$1; shift
while [ "$n" -gt 0 ]; do mount -t tmpfs -o size=16k,mode=0755,nosuid,nodev tmpfs "$1"; shift; n=$((n-1)); done
n=$1; shift
while [ "$n" -gt 0 ]; do mount --bind /dev/null "$1"; shift; n=$((n-1)); done
mount -t tmpfs -o size=64k,mode=0755,nosuid tmpfs /dev
mknod -m 666 /dev/null c 1 3; mknod -m 666 /dev/zero c 1 5; mknod -m 666 /dev/full c 1 7
mknod -m 666 /dev/random c 1 8; mknod -m 666 /dev/urandom c 1 9; mknod -m 666 /dev/tty c 5 0
mkdir /dev/shm /dev/pts; mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /dev/shm
if mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts /dev/pts 2>/dev/null; then ln -s pts/ptmx /dev/ptmx; fi
ln -s /proc/self/fd /dev/fd; ln -s /proc/self/fd/0 /dev/stdin; ln -s /proc/self/fd/1 /dev/stdout; ln -s /proc/self/fd/2 /dev/stderr
cd "$1"; shift
unset OLDPWD; if [ "$1" = drop-pwd ]; then unset PWD; fi; shift
set +e
p= f=0
trap 'f=1; if [ -n "$p" ]; then kill -TERM "$p" 2>/dev/null; fi' TERM INT HUP
"$@" <&3 >&4 3<&- 4>&- &
p=$!
exec 3<&- 4>&- 2>/dev/null
s=0; while :; do f=0; wait "$p"; t=$?; [ "$t" = 127 ] && break; s=$t; [ "$f" = 1 ] || break; done
exit $s`;

/**
 * The command line that runs `program` confined by `plan.mechanism`, keeping the host's files,
 * network and user (but the hidden paths), with exactly `program.env`:
 *
 * - `bubblewrap`: `bwrap --dev-bind / / --unshare-pid --proc /proc --die-with-parent --new-session`,
 *   hidden folders as `--tmpfs`, hidden files as `/dev/null`; as root also `--dev /dev` and
 *   `--cap-drop ALL`. bwrap sets no_new_privs; its pid 1 ends the namespace with the program. bwrap
 *   always sets PWD: `env -u PWD` takes it out again unless the program's environment had it.
 * - `unshare` (root): `setpriv --pdeathsig KILL -- unshare --pid --mount -- sh -c <outerScript>`,
 *   whose first child is `setpriv --pdeathsig KILL -- sh -c <unshareScript>` (pid 1 of the new pid
 *   namespace), then `setpriv --no-new-privs` with every capability dropped. Signals the caller
 *   sends reach the program as TERM.
 * - `dedicated-user` (root): `setpriv --reuid --regid --clear-groups --no-new-privs --pdeathsig KILL`
 *   to `plan.dedicatedUser`, without capabilities; no namespace, so nothing is hidden by mounts
 *   (the data folder's modes keep that user out).
 * - `none`: the program itself.
 */
export function confineHostProgram(program: HostProgram, plan: ConfinementPlan): SpawnLine {
  const cwd = program.cwd ?? plan.defaultCwd;
  const env = program.env;
  const { bwrap, unshare, setpriv, sh } = plan.tools;
  switch (plan.mechanism) {
    case "none":
      return { command: program.command, args: [...program.args], env, cwd };
    case "bubblewrap": {
      if (!bwrap) throw new Error("confineHostProgram: the bubblewrap plan has no bwrap");
      const args = ["--dev-bind", "/", "/", "--unshare-pid", "--proc", "/proc", "--die-with-parent", "--new-session"];
      if (plan.asRoot) args.push("--dev", "/dev", "--cap-drop", "ALL");
      for (const folder of plan.hiddenFolders) args.push("--tmpfs", folder);
      for (const file of plan.hiddenFiles) args.push("--dev-bind", "/dev/null", file);
      args.push("--chdir", cwd, "--");
      if (plan.tools.env && env.PWD === undefined) args.push(plan.tools.env, "-u", "PWD", "--");
      args.push(program.command, ...program.args);
      return { command: bwrap, args, env, cwd };
    }
    case "unshare": {
      if (!unshare || !setpriv || !sh) throw new Error("confineHostProgram: the unshare plan lacks unshare, setpriv or sh");
      const lists = [plan.hiddenFolders, plan.hiddenFiles].flatMap((list) => [String(list.length), ...list]);
      const args = ["--pdeathsig", "KILL", "--", unshare, "--pid", "--mount", "--propagation", "private", "--"];
      args.push(sh, "-c", outerScript, "thinktank-confine-outer", setpriv, sh, unshareScript, ...lists, cwd, env.PWD === undefined ? "drop-pwd" : "keep-pwd");
      args.push(setpriv, "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--", program.command, ...program.args);
      return { command: setpriv, args, env, cwd };
    }
    case "dedicated-user": {
      if (!setpriv) throw new Error("confineHostProgram: the dedicated-user plan has no setpriv");
      const { uid, gid } = plan.dedicatedUser;
      const args = ["--reuid", String(uid), "--regid", String(gid), "--clear-groups", "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--pdeathsig", "KILL", "--", program.command, ...program.args];
      return { command: setpriv, args, env, cwd };
    }
  }
}

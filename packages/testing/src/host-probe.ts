/** What a program the service started on the host could see of the service (hostProbeScript's answer). */
export interface HostProbeReport {
  /** Its own pid and parent, as its /proc shows them (in a pid namespace: small numbers). */
  readonly pid: number;
  readonly ppid: number;
  readonly uid: number;
  /** Every pid its /proc lists. */
  readonly visiblePids: readonly number[];
  /** Its chain of parents, nearest first, as far as its /proc goes. */
  readonly ancestors: readonly number[];
  /** Pids whose /proc/<pid>/environ it could read and that held the needle. */
  readonly needleFoundIn: readonly number[];
  /** ptrace(PTRACE_ATTACH) of each pid asked for: "attached", or the errno's text. */
  readonly ptrace: Readonly<Record<string, string>>;
  /** Each path asked for: a folder's entries, a file's size, or the error. */
  readonly reads: Readonly<Record<string, { readonly ok: boolean; readonly entries?: readonly string[]; readonly bytes?: number; readonly error?: string }>>;
  /** The NoNewPrivs and CapEff lines of its /proc/self/status. */
  readonly noNewPrivs: string;
  readonly capEff: string;
  readonly env: Readonly<Record<string, string>>;
}

/** What hostProbeScript reads on stdin (one JSON object). */
export interface HostProbeRequest {
  /** A secret of the service (its THINKTANK_API_KEY): looked for in every /proc/<pid>/environ it can read. */
  readonly needle: string;
  /** Pids to try PTRACE_ATTACH on (the service's); numbers, or their digits. */
  readonly ptrace?: readonly (number | string)[];
  /** Files and folders to try reading. */
  readonly read?: readonly string[];
  /** Leave `(setsid sleep <leave> &)` behind, double-forked out of its process group: a marker for processesWithMarker. */
  readonly leave?: string;
}

/**
 * A Python 3 program (stdlib only, ptrace through ctypes) that reports, as one JSON line on stdout,
 * what it can see of the process that started it: the /proc entries, its ancestors, every readable
 * environ holding a needle, ptrace of given pids, given paths, its privileges. Run it as a registered
 * tool's script, from a stdio MCP server, or directly; give it a HostProbeRequest on stdin.
 */
export const hostProbeScript = String.raw`import ctypes, json, os, sys

request = json.loads(sys.stdin.readline() or "{}")
needle = request.get("needle", "").encode()

def ppid_of(pid):
    with open("/proc/%d/stat" % pid) as f:
        stat = f.read()
    return int(stat[stat.rindex(")") + 2:].split()[1])

visible, found = [], []
for entry in os.listdir("/proc"):
    if not entry.isdigit():
        continue
    visible.append(int(entry))
    try:
        with open("/proc/%s/environ" % entry, "rb") as f:
            if needle and needle in f.read():
                found.append(int(entry))
    except OSError:
        pass

ancestors, pid = [], os.getpid()
while True:
    try:
        pid = ppid_of(pid)
    except (OSError, ValueError):
        break
    if pid <= 0 or pid in ancestors:
        break
    ancestors.append(pid)

libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
libc.ptrace.restype = ctypes.c_long
traced = {}
for target in [int(pid) for pid in request.get("ptrace", [])]:
    if libc.ptrace(16, target, None, None) == 0:
        traced[str(target)] = "attached"
        libc.ptrace(17, target, None, None)
    else:
        traced[str(target)] = os.strerror(ctypes.get_errno())

reads = {}
for path in request.get("read", []):
    try:
        if os.path.isdir(path):
            reads[path] = {"ok": True, "entries": sorted(os.listdir(path))}
        else:
            with open(path, "rb") as f:
                reads[path] = {"ok": True, "bytes": len(f.read())}
    except OSError as error:
        reads[path] = {"ok": False, "error": error.strerror or str(error)}

status = {}
with open("/proc/self/status") as f:
    for line in f:
        key, _, value = line.partition(":")
        status[key] = value.strip()

if request.get("leave"):
    os.system("(setsid sleep %s >/dev/null 2>&1 &)" % request["leave"])

print(json.dumps({
    "pid": os.getpid(), "ppid": os.getppid(), "uid": os.getuid(), "visiblePids": sorted(visible),
    "ancestors": ancestors, "needleFoundIn": found, "ptrace": traced, "reads": reads,
    "noNewPrivs": status.get("NoNewPrivs", ""), "capEff": status.get("CapEff", ""), "env": dict(os.environ),
}))
`;

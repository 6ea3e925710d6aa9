// Where the time of a process went, from a V8 CPU profile (node --cpu-prof): the share of samples
// whose innermost frame lies in each part (a package, the agent's own code, GC, idle).
import fs from "node:fs";

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** The part a frame belongs to: a package under node_modules, a workspace folder, Node itself, or a V8 pseudo-frame. */
function partOf(frame: ProfileNode["callFrame"]): string {
  if (frame.functionName === "(garbage collector)") return "GC";
  if (frame.functionName === "(idle)") return "idle";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(frame.url)?.[1];
  if (pkg) return pkg.startsWith("better-sqlite3") || pkg.includes("checkpoint-sqlite") ? "SQLite (better-sqlite3, checkpoint-sqlite)" : pkg;
  const workspace = /\/((?:apps|packages)\/[^/]+)\//.exec(frame.url)?.[1];
  if (workspace) return workspace;
  if (frame.url.startsWith("node:")) return "Node.js (http, streams, fs)";
  return "native (syscalls, compiled code)";
}

/** Share of the profile's busy time (idle left out) per part, largest first, in percent. */
export function cpuProfileShares(file: string): { busyMs: number; shares: [string, number][] } {
  const profile = JSON.parse(fs.readFileSync(file, "utf8")) as CpuProfile;
  const part = new Map(profile.nodes.map((node) => [node.id, partOf(node.callFrame)]));
  const time = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    const name = part.get(id) ?? "other";
    if (name === "idle") return;
    time.set(name, (time.get(name) ?? 0) + delta);
    total += delta;
  });
  const shares = [...time].map(([name, micros]): [string, number] => [name, (100 * micros) / total]).sort((a, b) => b[1] - a[1]);
  return { busyMs: total / 1000, shares };
}

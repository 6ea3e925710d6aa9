import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { ExecutionCgroup, releaseParent, removeCgroup, type MemoryCgroups } from "./execution-cgroup.js";
import { isProcessAlive } from "@thinktank/core";

/** How memory_mb holds: for each execution as a whole (a cgroup), or for each process (rlimits, the V8 heap). */
export type MemoryMode = "cgroup-v2" | "cgroup-v1" | "per-process";

export type { MemoryCgroups };

export type MemoryDetection = MemoryCgroups | { readonly mode: "per-process"; readonly reason: string };

interface Hierarchy {
  readonly version: 1 | 2;
  readonly dir: string;
}

const ownName = `thinktank-${process.pid}`;
const staleName = /^thinktank-(\d+)$/;
let detected: Promise<MemoryDetection> | undefined;

/**
 * Which memory mode holds in this process, found once and cached: cgroup v2 when this process's
 * cgroup has the memory controller and may hand it to children, else a cgroup v1 memory hierarchy
 * where this process may create cgroups, else per process. A cgroup mode is proved by moving a real
 * process into a probe cgroup. Stale `thinktank-<pid>` cgroups of processes that are gone are
 * removed first (their leftover tasks killed).
 */
export function detectMemoryCgroups(): Promise<MemoryDetection> {
  detected ??= detect();
  return detected;
}

async function detect(): Promise<MemoryDetection> {
  if (process.platform !== "linux") return { mode: "per-process", reason: `no cgroups on ${process.platform}` };
  let found: Hierarchy[];
  try {
    found = memoryHierarchies(fs.readFileSync("/proc/self/mountinfo", "utf8"), fs.readFileSync("/proc/self/cgroup", "utf8"));
  } catch (error) {
    return { mode: "per-process", reason: `cgroups unreadable: ${(error as Error).message}` };
  }
  const problems: string[] = [];
  for (const hierarchy of found) {
    const label = `cgroup v${hierarchy.version} at ${hierarchy.dir}`;
    const problem = usableProblem(hierarchy);
    if (problem) {
      problems.push(`${label}: ${problem}`);
      continue;
    }
    const cgroups: MemoryCgroups = { mode: hierarchy.version === 2 ? "cgroup-v2" : "cgroup-v1", version: hierarchy.version, baseDir: hierarchy.dir, parentDir: path.join(hierarchy.dir, ownName) };
    await sweepStale(cgroups);
    const failed = await proveJoin(cgroups);
    if (failed) {
      problems.push(`${label}: ${failed}`);
      continue;
    }
    process.once("exit", () => releaseParent(cgroups));
    return cgroups;
  }
  return { mode: "per-process", reason: problems.length > 0 ? problems.join("; ") : "no cgroup memory controller is mounted" };
}

/**
 * The memory hierarchies this process belongs to, cgroup v2 first: from /proc/self/mountinfo (where
 * each hierarchy is mounted, and which part of it) and /proc/self/cgroup (this process's path in it).
 */
export function memoryHierarchies(mountinfo: string, procCgroup: string): Hierarchy[] {
  const membership = procCgroup
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [id = "", controllers = "", ...rest] = line.split(":");
      return { id, controllers: controllers.split(","), path: rest.join(":") };
    });
  const found: Hierarchy[] = [];
  for (const line of mountinfo.split("\n")) {
    const [left, right] = line.split(" - ");
    if (!left || !right) continue;
    const fields = left.split(" ");
    const [fstype, , superOptions = ""] = right.split(" ");
    const version = fstype === "cgroup2" ? 2 : fstype === "cgroup" && superOptions.split(",").includes("memory") ? 1 : undefined;
    if (!version) continue;
    const member = version === 2 ? membership.find((entry) => entry.id === "0" && entry.controllers.join("") === "") : membership.find((entry) => entry.controllers.includes("memory"));
    const root = unescapeMountPath(fields[3] ?? "");
    const mountPoint = unescapeMountPath(fields[4] ?? "");
    if (!member || !root || !mountPoint) continue;
    // A mount of another part of the hierarchy (or from outside this cgroup namespace) does not reach this process's cgroup.
    const relative = path.posix.relative(root, member.path);
    if (relative.startsWith("..") || path.posix.isAbsolute(relative)) continue;
    const dir = path.posix.join(mountPoint, relative);
    if (!found.some((entry) => entry.dir === dir)) found.push({ version, dir });
  }
  return found.sort((a, b) => b.version - a.version);
}

/** Why a hierarchy cannot hold execution cgroups, or undefined when its parent cgroup could be made. */
function usableProblem(hierarchy: Hierarchy): string | undefined {
  try {
    if (hierarchy.version === 2) {
      const controllers = fs.readFileSync(path.join(hierarchy.dir, "cgroup.controllers"), "utf8").split(/\s+/);
      if (!controllers.includes("memory")) return "no memory controller here (on a hybrid host it is on cgroup v1)";
      const subtree = path.join(hierarchy.dir, "cgroup.subtree_control");
      // Fails with EBUSY when this cgroup holds processes and is not the root: the controller is not delegated.
      if (!fs.readFileSync(subtree, "utf8").split(/\s+/).includes("memory")) fs.writeFileSync(subtree, "+memory");
    }
    fs.accessSync(hierarchy.dir, fs.constants.W_OK);
    return undefined;
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    return code === "EBUSY" ? "the memory controller is not delegated to this cgroup (it holds processes)" : code === "EACCES" || code === "EROFS" || code === "EPERM" ? `not writable (${code})` : message;
  }
}

/** Undefined when a real process could join a probe cgroup with a memory limit, else why not. */
async function proveJoin(cgroups: MemoryCgroups): Promise<string | undefined> {
  let cgroup: ExecutionCgroup | undefined;
  try {
    cgroup = ExecutionCgroup.create(cgroups, 64);
    // Joined the way executions join (see `ExecutionCgroup.selfJoin`).
    const { file, value } = cgroup.selfJoin;
    const shown = await new Promise<string>((resolve, reject) => {
      execFile("/bin/sh", ["-c", `echo ${value} > "$1" && cat /proc/self/cgroup`, "thinktank-cgroup-probe", file], { timeout: 10_000, env: {} }, (error, stdout) => (error ? reject(error) : resolve(stdout)));
    });
    const expected = `/${ownName}/${path.basename(cgroup.dir)}`;
    return shown.includes(expected) ? undefined : `a probe process did not land in ${cgroup.dir}`;
  } catch (error) {
    return `a probe process could not join a cgroup: ${(error as Error).message.split("\n")[0] ?? ""}`;
  } finally {
    await cgroup?.remove();
  }
}

/** Removes the `thinktank-<pid>` cgroups of processes that are gone (a crashed run), killing what is left in them. */
async function sweepStale(cgroups: MemoryCgroups): Promise<void> {
  let entries: string[];
  try {
    entries = fs.readdirSync(cgroups.baseDir);
  } catch {
    return;
  }
  for (const name of entries) {
    const pid = Number(staleName.exec(name)?.[1]);
    if (!pid || pid === process.pid || isProcessAlive(pid)) continue;
    const dir = path.join(cgroups.baseDir, name);
    let children: string[] = [];
    try {
      children = fs.readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    } catch {
      continue;
    }
    for (const child of children) await removeCgroup(path.join(dir, child), cgroups.version);
    await removeCgroup(dir, cgroups.version);
  }
}

/** mountinfo escapes space, tab, newline and backslash as octal (\040). */
function unescapeMountPath(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { findExecutable } from "@thinktank/core";

const run = promisify(execFile);

/** A top-level system folder: bound read-only, or recreated as a symlink (merged-/usr systems). */
export interface SystemEntry {
  readonly path: string;
  readonly symlink?: string;
}

/** What the host offers the sandbox, found once per executor. */
export interface HostLayout {
  readonly bwrap: string | undefined;
  readonly bwrapVersion: string | undefined;
  /** `--disable-userns` (bubblewrap 0.8) and `--size` for tmpfs (0.7). */
  readonly features: { readonly disableUserns: boolean; readonly tmpfsSize: boolean };
  /** util-linux tools: prlimit sets the limits; unshare, mount and setpriv stage unreachable folders when running as root. */
  readonly prlimit: string | undefined;
  readonly unshare: string | undefined;
  readonly mount: string | undefined;
  readonly setpriv: string | undefined;
  /** Closes descriptors the host process inherited before a worker starts (see `withInheritedFdsClosed`). */
  readonly bash: string | undefined;
  readonly systemEntries: readonly SystemEntry[];
  readonly node: Interpreter;
}

/** A real interpreter binary and the host folders it needs besides the system ones. */
export interface Interpreter {
  readonly executable: string;
  readonly binds: readonly string[];
}

export interface DiscoverHostOptions {
  readonly searchPath: string;
  readonly bwrapCommand: string;
  readonly nodePath: string;
}

const systemFolders = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

export async function discoverHost(options: DiscoverHostOptions): Promise<HostLayout> {
  const bwrap = findExecutable(options.bwrapCommand, options.searchPath);
  let bwrapVersion: string | undefined;
  let help = "";
  if (bwrap) {
    bwrapVersion = await run(bwrap, ["--version"], { env: {}, timeout: 10_000 }).then((out) => out.stdout.trim(), () => undefined);
    help = await run(bwrap, ["--help"], { env: {}, timeout: 10_000 }).then((out) => out.stdout + out.stderr, () => "");
  }
  const systemEntries: SystemEntry[] = [{ path: "/usr" }];
  for (const folder of systemFolders) {
    try {
      const stats = fs.lstatSync(folder);
      if (stats.isSymbolicLink()) systemEntries.push({ path: folder, symlink: fs.readlinkSync(folder) });
      else if (stats.isDirectory()) systemEntries.push({ path: folder });
    } catch {
      // not on this system
    }
  }
  const nodeExecutable = fs.realpathSync(options.nodePath);
  return {
    bwrap,
    bwrapVersion,
    features: { disableUserns: help.includes("--disable-userns"), tmpfsSize: help.includes("--size") },
    prlimit: findExecutable("prlimit", options.searchPath),
    unshare: findExecutable("unshare", options.searchPath),
    mount: findExecutable("mount", options.searchPath),
    setpriv: findExecutable("setpriv", options.searchPath),
    bash: findExecutable("bash", options.searchPath),
    systemEntries,
    node: { executable: nodeExecutable, binds: extraBinds([path.dirname(path.dirname(nodeExecutable))], systemEntries) },
  };
}

/** Asks python where it really lives (`sys.executable`, `sys.base_prefix`): pyenv shims and venvs resolve here. */
export async function discoverPython(command: string, searchPath: string, systemEntries: readonly SystemEntry[]): Promise<Interpreter | { problem: string }> {
  const found = findExecutable(command, searchPath);
  if (!found) return { problem: `${command} was not found on the search path (${searchPath})` };
  const probe = "import json, sys; print(json.dumps([sys.executable, sys.base_prefix, sys.prefix]))";
  try {
    const { stdout } = await run(found, ["-c", probe], { env: { PATH: searchPath }, timeout: 30_000 });
    const [executable, basePrefix, prefix] = JSON.parse(stdout.trim().split("\n").at(-1) ?? "[]") as string[];
    if (!executable || !basePrefix || !prefix) return { problem: `${found} did not report its location` };
    const real = fs.realpathSync(executable);
    return { executable: real, binds: extraBinds([basePrefix, prefix, path.dirname(real)].map((p) => fs.realpathSync(p)), systemEntries) };
  } catch (error) {
    return { problem: `${found} could not be run: ${(error as Error).message.split("\n")[0]}` };
  }
}

/** The folders not already covered by a system mount, without duplicates or nesting. */
function extraBinds(candidates: readonly string[], systemEntries: readonly SystemEntry[]): string[] {
  const covered = (candidate: string, roots: readonly string[]): boolean => roots.some((root) => candidate === root || candidate.startsWith(`${root}/`));
  const systemRoots = systemEntries.filter((entry) => !entry.symlink).map((entry) => entry.path);
  const binds: string[] = [];
  for (const candidate of [...new Set(candidates)].sort((a, b) => a.length - b.length)) {
    if (candidate === "/" || covered(candidate, systemRoots) || covered(candidate, binds)) continue;
    binds.push(candidate);
  }
  return binds;
}

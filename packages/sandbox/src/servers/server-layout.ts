import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { findExecutable } from "@thinktank/core";
import type { HostLayout, Interpreter } from "../host/discover-host.js";
import { reservedSandboxPaths, sandboxPaths } from "../sandbox-paths.js";
import type { SandboxMount } from "../sandbox-types.js";
import type { SandboxServerRequest } from "./server-types.js";

/** What a server's sandbox holds besides what every sandbox does, and how its program starts. */
export interface ServerLayout {
  /** Host folders bound read-only at the same path: node's and python's, and the command's own folder when it came from the host's search path. */
  readonly binds: readonly string[];
  /** The working folder, read-only at its own path (none when it is already visible, or there is no cwd). */
  readonly mounts: readonly SandboxMount[];
  /** Hidden paths inside the mounts. */
  readonly covers: { readonly folders: readonly string[]; readonly files: readonly string[] };
  /** The working folder inside (undefined: the home). */
  readonly chdir: string | undefined;
  /** The sandbox's PATH: the interpreters' folders outside the system ones, then the system folders. */
  readonly searchPath: string;
  /** The environment the server starts from (its entry's is laid over it). */
  readonly env: Readonly<Record<string, string>>;
  /** The program and its arguments as the sandbox runs them. */
  readonly program: readonly string[];
}

export type ServerLayoutResult = ({ readonly ok: true } & ServerLayout) | { readonly ok: false; readonly message: string };

/** Size of a server's private /tmp (and /dev/shm), in MiB: installers unpack there. */
export const serverTmpMb = 256;

/** The host's CA certificates (Debian's layout), bound at /etc/ssl/certs: a server that speaks TLS through the egress proxy needs them. */
export const hostCaCertificates = "/etc/ssl/certs";

/**
 * npx and npm in a server's sandbox: a restart runs the package npx cached in the server's home
 * without asking the registry again, and npm does not ask it for its own updates (an entry's env may
 * say otherwise).
 */
const npmServerEnv = { npm_config_prefer_offline: "true", npm_config_update_notifier: "false" };

/** Names a shell can export (the environment reaches the server through `export`). */
const variableName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Folders a working folder may not be in: the sandbox's own /etc, /proc, /dev, /run, /sys and
 * workspace are not the host's. (/tmp is the sandbox's own too, but a folder in it is mounted after
 * it, so a cwd there works.)
 */
const foreignRoots = reservedSandboxPaths.filter((folder) => !["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/tmp"].includes(folder));

/**
 * Lays out a stdio server's sandbox: which host folders it sees (the system ones, node's and
 * python's, the command's folder when it is found only on the host's search path, its `cwd`
 * read-only with the hidden paths in it covered), its PATH, and its command resolved the way a
 * spawn inside will resolve it. Every refusal names the fix.
 */
export function serverLayout(request: SandboxServerRequest, host: HostLayout, python: Interpreter | undefined, hostSearchPath: string): ServerLayoutResult {
  const fail = (message: string): ServerLayoutResult => ({ ok: false, message });
  const badName = Object.keys(request.env).find((name) => !variableName.test(name));
  if (badName !== undefined) return fail(`its env names '${badName}', which is not a variable name a sandboxed server can be given (letters, digits and _, not starting with a digit)`);

  const systemRoots = host.systemEntries.filter((entry) => !entry.symlink).map((entry) => entry.path);
  const binds = [...new Set([...host.node.binds, ...(python?.binds ?? [])])];
  const interpreterFolders = [path.dirname(host.node.executable), ...(python ? [path.dirname(python.executable)] : [])];
  const pathFolders = [...new Set([...interpreterFolders.filter((folder) => !under(folder, systemRoots)), "/usr/local/bin", "/usr/bin", "/bin"])];

  let cwd: string | undefined;
  const mounts: SandboxMount[] = [];
  const covers = { folders: [] as string[], files: [] as string[] };
  if (request.cwd !== undefined) {
    try {
      cwd = fs.realpathSync(path.resolve(request.cwd));
      if (!fs.statSync(cwd).isDirectory()) return fail(`its cwd ${request.cwd} is not a folder`);
    } catch {
      return fail(`its cwd ${request.cwd} does not exist`);
    }
    if (cwd === "/") return fail("its cwd is the root folder: name the folder that holds the server");
    if (sharedTemporaryFolders().includes(cwd)) return fail(`its cwd ${cwd} is a temporary folder every program shares: name the folder that holds the server`);
    if (under(cwd, foreignRoots)) return fail(`its cwd ${cwd} is not the host's inside the sandbox (its /etc, /proc, /dev, /run and /sys are its own): move the server elsewhere`);
    for (const hidden of request.hide ?? []) {
      const real = realPathOf(hidden);
      if (real === undefined) continue;
      if (under(cwd, [real])) return fail(`its cwd ${cwd} is inside a folder no program the service starts may see (the data folder, logs, workspaces): move the server elsewhere`);
      if (!under(real, [cwd])) continue;
      (fs.statSync(real).isDirectory() ? covers.folders : covers.files).push(real);
    }
    // A path inside a covered folder is hidden with it (its mount point is gone under the cover).
    const inCovered = (candidate: string): boolean => covers.folders.some((folder) => candidate !== folder && under(candidate, [folder]));
    covers.folders = [...new Set(covers.folders)].filter((folder) => !inCovered(folder));
    covers.files = [...new Set(covers.files)].filter((file) => !inCovered(file));
    if (!under(cwd, [...systemRoots, ...binds])) mounts.push({ hostPath: cwd, sandboxPath: cwd });
  }
  const visible = (hostPath: string): boolean => under(hostPath, [...systemRoots, ...binds, ...mounts.map((mount) => mount.hostPath)]) && !under(hostPath, [...covers.folders, ...covers.files]);

  const command = request.command;
  if (command.trim() === "") return fail("its command is empty");
  if (!command.includes("/")) {
    const inside = findExecutable(command, pathFolders.join(":"), { realPath: false }) !== undefined;
    if (!inside) {
      const found = findExecutable(command, hostSearchPath, { realPath: false });
      if (!found) return fail(`its command '${command}' was not found on the sandbox's PATH (${pathFolders.join(":")}) nor on the host's search path`);
      for (const folder of [path.dirname(found), path.dirname(fs.realpathSync(found))]) {
        if (!visible(folder) && !binds.includes(folder)) binds.push(folder);
      }
      pathFolders.unshift(path.dirname(found));
    }
  } else {
    if (!path.isAbsolute(command) && cwd === undefined) return fail(`its command '${command}' is a relative path: name the folder it is relative to as the entry's cwd`);
    const hostPath = path.resolve(cwd ?? "/", command);
    const real = findExecutable(hostPath);
    if (real === undefined) return fail(`its command ${hostPath} does not exist or is not executable`);
    if (!visible(hostPath) || !visible(real)) return fail(`its command ${hostPath} is outside what its sandbox sees (the system folders, node's and python's, its cwd): name the folder that holds it as the entry's cwd`);
  }
  const searchPath = pathFolders.join(":");
  const env = { PATH: searchPath, HOME: sandboxPaths.workspace, TMPDIR: sandboxPaths.tmp, LANG: "C.UTF-8", ...npmServerEnv };
  return { ok: true, binds, mounts, covers, chdir: cwd, searchPath, env, program: [command, ...request.args] };
}

/** Temporary folders every program writes in: no server sees all of one. */
function sharedTemporaryFolders(): string[] {
  return [...new Set(["/tmp", "/var/tmp", os.tmpdir()].map((folder) => realPathOf(folder) ?? folder))];
}

/** Whether `candidate` is one of `roots` or inside one. */
function under(candidate: string, roots: readonly string[]): boolean {
  return roots.some((root) => candidate === root || candidate.startsWith(root === "/" ? "/" : `${root}/`));
}

function realPathOf(target: string): string | undefined {
  try {
    return fs.realpathSync(target);
  } catch {
    return undefined;
  }
}

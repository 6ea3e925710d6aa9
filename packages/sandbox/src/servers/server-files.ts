import fs from "node:fs";
import path from "node:path";
import { proxiedFetchModules, proxiedFetchSource } from "../network/proxied-fetch.js";
import { sandboxBridgeDir } from "../sandbox-paths.js";

/**
 * Exports each `NAME=value` of the NUL-separated file `$1`, then execs the rest: a server's
 * environment reaches it from a file in its sandbox's own folder, never through a command line,
 * which any local user may read in /proc. The variables bash itself exports (PWD, OLDPWD, and SHLVL,
 * which its exec sets again, hence env) are dropped, so the server gets exactly the file's.
 */
const loaderScript = `unset PWD OLDPWD; while IFS= read -r -d '' pair; do export "$pair" || exit 125; done < "$1"; shift; exec /usr/bin/env -u SHLVL -- "$@"`;

/**
 * Node 20's fetch ignores HTTP(S)_PROXY: this file, required through NODE_OPTIONS by every node
 * process of a server that may use the network (npx, npm and the server itself), replaces it with
 * the fetch that goes through the egress proxy (the one the JavaScript bootstraps install).
 */
const fetchPreload = `"use strict";
if (typeof globalThis.fetch === "function") {
  const nativeFetch = globalThis.fetch.bind(globalThis);
  ${proxiedFetchSource}
  globalThis.fetch = thinktankProxiedFetch(() => process.env, nativeFetch, ${proxiedFetchModules});
}
`;

const envFileName = "server.env";
const preloadFileName = "proxied-fetch.cjs";

/** The files in a server sandbox's own folder (`runDir`, bound read-only at /run/thinktank) that start its program. */
export function serverFiles(runDir: string, sandboxGid: number | undefined) {
  const write = (name: string, text: string): void => {
    const file = path.join(runDir, name);
    // As root the sandbox user reads it through its group (the folder is 0750 root:<its group>); no one else can.
    fs.writeFileSync(file, text, { mode: sandboxGid === undefined ? 0o600 : 0o640 });
    if (sandboxGid !== undefined) fs.chownSync(file, 0, sandboxGid);
  };
  return {
    /** The command prefix inside the sandbox that loads the environment and execs the program. */
    loader: (bash: string): string[] => [bash, "--norc", "--noprofile", "-c", loaderScript, "thinktank-env", path.posix.join(sandboxBridgeDir, envFileName)],
    /** The proxy variables, and NODE_OPTIONS requiring the proxied fetch before the entry's own. */
    egressEnv: (egress: Readonly<Record<string, string>>, env: Readonly<Record<string, string>>): Record<string, string> => {
      const preload = `--require=${path.posix.join(sandboxBridgeDir, preloadFileName)}`;
      return { ...egress, NODE_OPTIONS: env.NODE_OPTIONS ? `${preload} ${env.NODE_OPTIONS}` : preload };
    },
    /** Writes the environment file, and the fetch preload for a server with network (see `egressEnv`). */
    write: (env: Readonly<Record<string, string>>, options: { readonly fetchPreload: boolean }): void => {
      if (options.fetchPreload) write(preloadFileName, fetchPreload);
      write(envFileName, Object.entries(env).map(([name, value]) => `${name}=${value}\0`).join(""));
    },
  };
}

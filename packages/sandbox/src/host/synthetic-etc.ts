import fs from "node:fs";
import path from "node:path";
import { sandboxPaths } from "../sandbox-paths.js";

/** The user the program sees inside the sandbox (mapped to the real sandbox user outside). */
export const sandboxUser = { name: "sandbox", uid: 1000, gid: 1000 } as const;

/**
 * Writes the /etc the sandbox sees: a passwd and group naming only the sandbox user, loopback-only
 * hosts, no resolver. From the host it copies only what is not sensitive and makes programs behave:
 * the dynamic linker cache and the time zone. Returns the folder.
 */
export function writeSyntheticEtc(dir: string, hostEtc = "/etc"): string {
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  const { name, uid, gid } = sandboxUser;
  const files: Record<string, string> = {
    passwd: `root:x:0:0:root:/nonexistent:/usr/sbin/nologin\n${name}:x:${uid}:${gid}:${name}:${sandboxPaths.workspace}:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
    group: `root:x:0:\n${name}:x:${gid}:\nnogroup:x:65534:\n`,
    hosts: "127.0.0.1 localhost\n::1 localhost\n",
    hostname: "sandbox\n",
    "nsswitch.conf": "passwd: files\ngroup: files\nhosts: files\n",
    "resolv.conf": "# no network in the sandbox\n",
  };
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text, { mode: 0o644 });
  for (const file of ["ld.so.cache", "localtime"]) {
    try {
      fs.copyFileSync(path.join(hostEtc, file), path.join(dir, file));
      fs.chmodSync(path.join(dir, file), 0o644);
    } catch {
      // absent on this host: programs still work without it
    }
  }
  // Mount point for the host's /etc/alternatives (symlinks such as awk -> mawk), bound read-only when present.
  fs.mkdirSync(path.join(dir, "alternatives"), { recursive: true, mode: 0o755 });
  // Mount point for the host's CA certificates (/etc/ssl/certs), bound read-only for sandboxed servers.
  fs.mkdirSync(path.join(dir, "ssl", "certs"), { recursive: true, mode: 0o755 });
  return dir;
}

import fs from "node:fs";
import path from "node:path";

/** Host processes whose command line contains `marker` (sandboxed processes are visible from the host); never this process. */
export function processesWithMarker(marker: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (fs.readFileSync(path.join("/proc", entry, "cmdline"), "utf8").includes(marker)) found.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return found;
}

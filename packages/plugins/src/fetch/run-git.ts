import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { redactSecrets, ThinktankError, type HostConfinement } from "@thinktank/core";

export interface GitRun {
  readonly args: readonly string[];
  readonly cwd: string;
  /** The variables git runs with (see gitEnvironment): nothing else from the host reaches it. */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Stop git once this folder (the repository's .git) holds more than `maxBytes`. */
  readonly sizeLimit?: { readonly dir: string; readonly maxBytes: number };
  /** Shown in errors instead of the arguments (which may hold a URL). */
  readonly what: string;
  /** Strings to blank out of git's messages (a token). */
  readonly secrets?: readonly string[];
  /** Confines git on the host (its own pid namespace, the data folder hidden). */
  readonly confinement: HostConfinement;
}

const sizeCheckMs = 100;
const keptOutput = 16 * 1024;

/**
 * Runs git with a deadline and a size cap. git has no option to bound a fetch, so the process
 * group is killed when the deadline passes (SOURCE_TIMEOUT) or the repository folder grows
 * past the cap (SOURCE_TOO_LARGE, checked every 100 ms while git writes the pack, and once when
 * it ends). A non-zero exit is SOURCE_FETCH_FAILED with the end of git's message. Resolves with
 * stdout. git runs confined (`run.confinement`): it never sees the service's processes or data folder.
 */
export async function runGit(run: GitRun): Promise<string> {
  // Found once per process (a probe), without blocking the event loop; confine() then uses it.
  await run.confinement.detect();
  // `what` names a URL, which may carry a password or a token as its user name: masked in every message.
  const what = redactSecrets(run.what);
  return new Promise((resolve, reject) => {
    const line = run.confinement.confine({ command: "git", args: run.args, env: run.env, cwd: run.cwd });
    if (!line.ok) {
      reject(new ThinktankError("SOURCE_FETCH_FAILED", `${what}: cannot run git (${line.error.message}); is git installed?`, { cause: line.error }));
      return;
    }
    const child = spawn(line.command, [...line.args], { cwd: line.cwd, env: line.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    let stopped: ThinktankError | undefined;
    const stop = (error: ThinktankError): void => {
      if (stopped) return;
      stopped = error;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    };
    child.stdout.on("data", (chunk: Buffer) => {
      if (stdout.length < keptOutput) stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-keptOutput);
    });
    const deadline = setTimeout(() => stop(new ThinktankError("SOURCE_TIMEOUT", `${what} took longer than ${Math.round(run.timeoutMs / 1000)} s (plugins.fetch.timeout_seconds); stopped`)), run.timeoutMs);
    const limit = run.sizeLimit;
    const checkSize = (): void => {
      if (limit && folderSize(limit.dir) > limit.maxBytes) stop(new ThinktankError("SOURCE_TOO_LARGE", `${what} brought in more than ${limit.maxBytes} bytes (plugins.fetch.max_mb); stopped`));
    };
    const watch = limit ? setInterval(checkSize, sizeCheckMs) : undefined;
    const finish = (): void => {
      clearTimeout(deadline);
      if (watch) clearInterval(watch);
    };
    child.on("error", (error) => {
      finish();
      reject(new ThinktankError("SOURCE_FETCH_FAILED", `${what}: cannot run git (${error.message}); is git installed?`, { cause: error }));
    });
    child.on("close", (code) => {
      finish();
      // A fetch faster than the first look is measured once more: the same refusal however fast git was.
      if (!stopped && code === 0) checkSize();
      if (stopped) return reject(stopped);
      if (code === 0) return resolve(stdout);
      let message = stderr.trim().split("\n").slice(-4).join(" | ");
      for (const secret of run.secrets ?? []) if (secret) message = message.replaceAll(secret, "***");
      reject(new ThinktankError("SOURCE_FETCH_FAILED", `${what} failed: ${redactSecrets(message) || `git exited with ${code}`}`));
    });
  });
}

/** Bytes of the files under `dir` (a few dozen in a shallow fetch); 0 when it is gone. */
function folderSize(dir: string): number {
  let total = 0;
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else {
        try {
          total += fs.lstatSync(full).size;
        } catch {
          // written and renamed meanwhile
        }
      }
    }
  }
  return total;
}

import { execFile } from "node:child_process";

/**
 * Runs a program without blocking the event loop (a test's bridge stub must keep answering),
 * and answers its exit code and output. Test support only.
 */
export function runProcess(command: string, args: readonly string[], options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, [...args], { env: options.env, cwd: options.cwd, timeout: options.timeoutMs ?? 60_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

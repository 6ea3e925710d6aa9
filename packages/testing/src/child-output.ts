import type { ChildProcess } from "node:child_process";
import readline from "node:readline";
import { isServiceReadyMessage } from "@thinktank/core";

/** A child process's output lines as they arrive, and a wait for one of them. */
export interface ChildLines {
  /** Every line printed so far, stdout and stderr interleaved in the order they arrived. */
  readonly lines: readonly string[];
  /**
   * Resolves with the first line, already printed or still to come, that `match` accepts. Rejects,
   * with the output so far, when the child's output ends without one or after `timeoutMs`.
   */
  waitFor(match: (line: string) => boolean, timeoutMs: number): Promise<string>;
}

/** Reads the child's stdout and stderr (piped) line by line from now on. */
export function childLines(child: ChildProcess): ChildLines {
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  const notify = (): void => {
    for (const waiter of [...waiters]) waiter();
  };
  let ended = false;
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    readline.createInterface({ input: stream }).on("line", (line) => {
      lines.push(line);
      notify();
    });
  }
  // "close": the child has exited and its output streams are drained, so every line is in.
  child.once("close", () => {
    ended = true;
    notify();
  });
  return {
    lines,
    waitFor: (match, timeoutMs) =>
      new Promise<string>((resolve, reject) => {
        const finish = (outcome: () => void): void => {
          clearTimeout(timer);
          waiters.delete(check);
          outcome();
        };
        const check = (): void => {
          const found = lines.find(match);
          if (found !== undefined) finish(() => resolve(found));
          else if (ended) finish(() => reject(new Error(`the process ended (code ${child.exitCode}, signal ${child.signalCode}) without the line awaited:\n${lines.join("\n")}`)));
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`the line awaited did not come within ${timeoutMs} ms:\n${lines.join("\n")}`))), timeoutMs);
        waiters.add(check);
        check();
      }),
  };
}

/**
 * Resolves with the URL a thinktank service (`thinktank gateway`, the agent server) reports over its
 * IPC channel once it listens (spawn it with stdio [..., "ipc"]); a port that answers could be
 * another program's. Rejects when the child exits first or after `timeoutMs`, with `output()`.
 */
export function serviceListening(child: ChildProcess, timeoutMs: number, output: () => string = () => ""): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const finish = (outcome: () => void): void => {
      clearTimeout(timer);
      child.off("message", onMessage);
      child.off("exit", onExit);
      outcome();
    };
    const onMessage = (message: unknown): void => {
      if (isServiceReadyMessage(message)) finish(() => resolve(message.url));
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => finish(() => reject(new Error(`the service exited (code ${code}, signal ${signal}) before it listened:\n${output()}`)));
    const timer = setTimeout(() => finish(() => reject(new Error(`the service did not listen within ${timeoutMs} ms:\n${output()}`))), timeoutMs);
    child.on("message", onMessage);
    child.once("exit", onExit);
    if (child.exitCode !== null || child.signalCode !== null) onExit(child.exitCode, child.signalCode);
  });
}

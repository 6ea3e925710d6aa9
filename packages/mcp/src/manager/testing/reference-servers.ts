import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { McpServerEntry } from "../../servers/server-entry.js";
import { processAlive, waitFor } from "./wait-for.js";

const require = createRequire(import.meta.url);
const launcherPath = path.join(path.dirname(fileURLToPath(import.meta.url)), "loopback-launcher.mjs");

export type ReferenceServer = "server-everything" | "server-filesystem" | "server-memory";

/** The entry script of an installed reference server (@modelcontextprotocol/<name>). */
export function referenceServerScript(name: ReferenceServer): string {
  return path.join(path.dirname(require.resolve(`@modelcontextprotocol/${name}/package.json`)), "dist", "index.js");
}

/** A stdio entry that runs a reference server with the current Node binary. */
export function referenceStdioEntry(name: ReferenceServer, args: string[] = [], env: Record<string, string> = {}): McpServerEntry {
  return { command: process.execPath, args: [referenceServerScript(name), ...args], env };
}

export interface RunningHttpServer {
  readonly url: string;
  readonly pid: number;
  /** Kills the process (SIGKILL: a crash, not a shutdown) and waits until it is gone. */
  kill(): Promise<void>;
}

/**
 * Starts server-everything in `sse` or `streamableHttp` mode on 127.0.0.1:`port` as its own
 * process and waits until it accepts connections. The caller kills it.
 */
export async function startEverythingOverHttp(mode: "sse" | "streamableHttp", port: number): Promise<RunningHttpServer> {
  const child: ChildProcess = spawn(process.execPath, [launcherPath, referenceServerScript("server-everything"), mode], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const pid = child.pid as number;
  try {
    await waitFor(`server-everything ${mode} on port ${port}`, async () => {
      if (child.exitCode !== null) throw new Error(`server-everything ${mode} exited (${child.exitCode}): ${stderr}`);
      return canConnect(port);
    });
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  return {
    url: `http://127.0.0.1:${port}${mode === "sse" ? "/sse" : "/mcp"}`,
    pid,
    async kill() {
      child.kill("SIGKILL");
      await waitFor(`process ${pid} to end`, () => !processAlive(pid));
    },
  };
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

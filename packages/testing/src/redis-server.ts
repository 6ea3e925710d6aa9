import { spawn } from "node:child_process";
import { childLines, type ChildLines } from "./child-output.js";
import { freePort } from "./free-port.js";
import { makeTempDir } from "./temp-dir.js";

/** A real `redis-server` started for a test (`needs("redis")`), alone on its port and folder. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>`, for the `redis` client's `createClient({ url })`. */
  readonly url: string;
  readonly port: number;
  /** Its log so far (it logs to stdout). */
  readonly output: ChildLines;
  /** Stops it (SIGTERM, waits for the exit) and removes its folder; again is a no-op. */
  stop(): Promise<void>;
}

/** How long the server may take to say it accepts connections. */
const readyTimeoutMs = 15_000;
/** A port that was free a moment ago may be taken before redis binds it; then another is tried. */
const attempts = 3;

/**
 * Starts `redis-server` from PATH on a free port of 127.0.0.1 with a fresh temp folder, no
 * persistence (`--save "" --appendonly no`), and resolves once it logs that it accepts connections.
 */
export async function startRedis(): Promise<RedisServer> {
  let lastError: Error | undefined;
  for (let attempt = 0; attempt < attempts; attempt++) {
    try {
      return await startOnce(await freePort());
    } catch (error) {
      lastError = error as Error;
      if (!/address already in use/i.test(lastError.message)) throw lastError;
    }
  }
  throw lastError ?? new Error("redis-server did not start");
}

async function startOnce(port: number): Promise<RedisServer> {
  const temp = makeTempDir("tt-redis-");
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", temp.dir, "--logfile", "", "--daemonize", "no"];
  const child = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
  if (child.pid === undefined) {
    const error = await new Promise<Error>((resolve) => child.once("error", resolve));
    temp.cleanup();
    throw new Error(`cannot start redis-server (apt-get install redis-server): ${error.message}`);
  }
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const output = childLines(child);
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (!stopped) {
      stopped = true;
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
      temp.cleanup();
    }
  };
  try {
    await output.waitFor((line) => line.includes("Ready to accept connections"), readyTimeoutMs);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `redis://127.0.0.1:${port}`, port, output, stop };
}

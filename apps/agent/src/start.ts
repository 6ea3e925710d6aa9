// Entry point of the agent server process: `node apps/agent/dist/src/start.js` (the build), or from
// the sources `node --conditions=development --import tsx apps/agent/src/start.ts`.
// `thinktank start` launches it as a child process; AGENT_PORT / agent.port choose the port.
import v8 from "node:v8";
import { reportListening } from "@thinktank/core";
import { startAgentServer } from "./start-agent-server.js";

// Under sustained load V8 let the heap grow to about 4× its live data (~100 MB here), which put
// the process near 600 MiB RSS; a growth factor of 1.5 keeps it under ~400 MiB for the same
// throughput and CPU per run (bench/load.bench.ts). Read at every GC, so setting it here works.
v8.setFlagsFromString("--heap-growing-percent=50");

/** How long a stop may take before the process exits anyway (nobody else will kill it once its parent is gone). */
const stopGraceMs = 10_000;

// /mcp is mounted by buildAgentServer: the runtime's code-mode endpoint over the same MCP manager as the runs.
const started = await startAgentServer({ env: process.env, cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr });
if (!started.ok) {
  process.exitCode = started.exitCode;
  if (process.connected) process.disconnect(); // the IPC channel would keep the process alive
} else {
  let stopping = false;
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    started.server.app.log.info({ reason }, "stopping");
    setTimeout(() => {
      console.error(`thinktank agent: still stopping after ${stopGraceMs / 1000} s; exiting`);
      process.exit(1);
    }, stopGraceMs).unref();
    started.server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  // Started by `thinktank start` with an IPC channel: if that process dies without stopping us
  // (SIGKILL, a crash), the channel disconnects, and the agent must not live on as an orphan.
  if (typeof process.send === "function") {
    if (process.connected) process.on("disconnect", () => stop("parent process gone (IPC channel disconnected)"));
    else stop("parent process gone before start-up finished");
  }
  reportListening(started.url);
}

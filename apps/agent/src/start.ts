// Entry point of the agent server process: `node --import tsx apps/agent/src/start.ts`.
// `thinktank start` launches it as a child process; AGENT_PORT / agent.port choose the port.
import { startAgentServer } from "./start-agent-server.js";

// /mcp is mounted by buildAgentServer: the runtime's code-mode endpoint over the same MCP manager as the runs.
const started = await startAgentServer({ env: process.env, cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr });
if (!started.ok) {
  process.exitCode = started.exitCode;
} else {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    started.server.app.log.info({ signal }, "stopping");
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
}

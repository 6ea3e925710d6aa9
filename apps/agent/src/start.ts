// Entry point of the agent server process: `node --import tsx apps/agent/src/start.ts`.
// `thinktank start` launches it as a child process; AGENT_PORT / agent.port choose the port.
import { CodeModeRuntime } from "@thinktank/codemode";
import { startAgentServer } from "./start-agent-server.js";

const started = await startAgentServer({
  env: process.env,
  cwd: process.cwd(),
  stdout: process.stdout,
  stderr: process.stderr,
  // /mcp: list_servers, search_tools and execute_code over the configured MCP servers (packages/codemode); closes with the app.
  deps: (config) => ({ mountMcpEndpoint: (app) => new CodeModeRuntime(config, { logger: app.log }).mountMcpEndpoint(app) }),
});
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

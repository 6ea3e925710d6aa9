import { loadConfig } from "@thinktank/core";
import { freePort, makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, beforeAll } from "vitest";
import { buildAgentServer, type AgentServer } from "../../src/server/build-agent-server.js";

/** A suite's agent server in this process, listening on a free loopback port (real HTTP). */
export interface ListeningAgentServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly server: AgentServer;
  /** The project folder. */
  readonly dir: string;
}

export interface ListeningAgentServerOptions {
  /** config.yaml's text. @default data_dir: data, the scripted model */
  readonly configYaml?: string;
  /** More files of the project folder (relative path → contents); extensions_config.json is empty unless given. */
  readonly files?: Readonly<Record<string, string>>;
  /** The environment loadConfig reads. @default {} */
  readonly env?: Readonly<Record<string, string>>;
  /** Skip the suite's server (a suite that `needs` a part that is missing). */
  readonly skip?: boolean;
}

const scriptedModel = "data_dir: data\nmodels:\n  providers:\n    s:\n      provider: scripted\n";

/**
 * Registers beforeAll/afterAll that build an agent server over a fresh project folder, listen,
 * and close it after the suite; read the fields inside tests.
 */
export function useListeningAgentServer(options: ListeningAgentServerOptions | (() => ListeningAgentServerOptions) = {}): ListeningAgentServer {
  const temp = makeTempDir("tt-agent-http-");
  const started: { url?: string; server?: AgentServer } = {};
  beforeAll(async () => {
    const resolved = typeof options === "function" ? options() : options;
    if (resolved.skip) return;
    writeTree(temp.dir, {
      "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }),
      "config.yaml": resolved.configYaml ?? scriptedModel,
      ...resolved.files,
    });
    started.server = await buildAgentServer(loadConfig({ cwd: temp.dir, env: { ...resolved.env } }), { logger: false });
    const port = await freePort();
    await started.server.app.listen({ host: "127.0.0.1", port });
    started.url = `http://127.0.0.1:${port}`;
  }, 60_000);
  afterAll(async () => {
    await started.server?.close();
    temp.cleanup();
  });
  return {
    get url() {
      return started.url as string;
    },
    get server() {
      return started.server as AgentServer;
    },
    dir: temp.dir,
  };
}

// Test support: a config, real MCP servers behind a manager, the sandbox (config.sandbox.backend, auto unless given) and CodeMode, in a temp folder.
import fs from "node:fs";
import path from "node:path";
import { loadConfig, type Config } from "@thinktank/core";
import { McpManager, type McpServerEntry } from "@thinktank/mcp";
import { createSandboxExecutor, type SandboxExecutor } from "@thinktank/sandbox";
import { makeTempDir } from "@thinktank/testing";
import { CodeMode, type CodeModeOptions } from "../code-mode.js";
import { McpToolInvoker } from "../invoker/mcp-tool-invoker.js";

export interface CodeModeFixture {
  readonly root: string;
  readonly config: Config;
  readonly manager: McpManager;
  readonly executor: SandboxExecutor;
  readonly codeMode: CodeMode;
  cleanup(): Promise<void>;
}

export interface CodeModeFixtureOptions {
  readonly servers: (root: string) => Record<string, McpServerEntry>;
  readonly mcp?: Partial<Config["mcp"]>;
  readonly codeExecution?: Partial<Config["code_execution"]>;
  readonly sandbox?: Partial<Config["sandbox"]>;
  readonly codeMode?: Partial<CodeModeOptions>;
}

export function codeModeFixture(options: CodeModeFixtureOptions): CodeModeFixture {
  const temp = makeTempDir("tt-codemode-");
  // The unprivileged sandbox user must reach the workspaces when the tests run as root.
  fs.chmodSync(temp.dir, 0o755);
  const loaded = loadConfig({ cwd: temp.dir, env: {} });
  const config: Config = {
    ...loaded,
    env: { PATH: process.env.PATH },
    mcp: { ...loaded.mcp, connect_timeout_ms: 30_000, call_timeout_ms: 30_000, retries: 2, retry_base_delay_ms: 50, ...options.mcp },
    code_execution: { ...loaded.code_execution, timeout_seconds: 60, ...options.codeExecution },
    sandbox: { ...loaded.sandbox, warm_pool_size: 0, ...options.sandbox },
  };
  const manager = new McpManager({ mcp: config.mcp, env: config.env }, options.servers(temp.dir));
  const executor = createSandboxExecutor({ config, searchPath: process.env.PATH, runtimeDir: path.join(temp.dir, "sandbox-runtime") });
  const codeMode = new CodeMode({ config, executor, invokers: [new McpToolInvoker(manager)], runtimeDir: path.join(temp.dir, "bridges"), ...options.codeMode });
  return {
    root: temp.dir,
    config,
    manager,
    executor,
    codeMode,
    async cleanup() {
      await codeMode.close();
      await manager.close();
      await executor.close();
      temp.cleanup();
    },
  };
}

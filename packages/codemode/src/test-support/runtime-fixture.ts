// Test support: a config.yaml and extensions_config.json in a temp folder, for the runtime and the agent process.
import fs from "node:fs";
import path from "node:path";
import { loadConfig, type Config } from "@thinktank/core";
import type { McpServerEntry } from "@thinktank/mcp";
import { makeTempDir } from "@thinktank/testing";

export interface ConfigFolder {
  readonly root: string;
  readonly configPath: string;
  load(env?: Record<string, string>): Config;
  writeServers(servers: Record<string, McpServerEntry>): void;
  cleanup(): void;
}

/** A folder with config.yaml (code mode settings that suit tests) and extensions_config.json holding `servers`. */
export function configFolder(servers: Record<string, McpServerEntry>, yaml = ""): ConfigFolder {
  const temp = makeTempDir("tt-cm-config-");
  fs.chmodSync(temp.dir, 0o755);
  const configPath = path.join(temp.dir, "config.yaml");
  fs.writeFileSync(
    configPath,
    ["data_dir: data", "code_execution:", "  timeout_seconds: 60", "sandbox:", "  warm_pool_size: 0", "mcp:", "  connect_timeout_ms: 30000", "  retries: 1", "  retry_base_delay_ms: 50", yaml].join("\n"),
  );
  const folder: ConfigFolder = {
    root: temp.dir,
    configPath,
    load: (env = {}) => loadConfig({ cwd: temp.dir, env: { PATH: process.env.PATH ?? "", ...env } }),
    writeServers: (entries) => fs.writeFileSync(path.join(temp.dir, "extensions_config.json"), `${JSON.stringify({ mcpServers: entries, skills: {}, plugins: {}, tools: {} }, null, 2)}\n`),
    cleanup: temp.cleanup,
  };
  folder.writeServers(servers);
  return folder;
}

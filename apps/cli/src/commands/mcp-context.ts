import fs from "node:fs";
import { ExtensionsStore, hostConfinementFor, serviceSecretVariables } from "@thinktank/core";
import type { Config } from "@thinktank/core";
import { createOAuthTokenStore, McpManager } from "@thinktank/mcp";
import type { ConnectProgress, McpServerEntry } from "@thinktank/mcp";
import { PluginSnapshotter } from "@thinktank/plugins";
import { createStdioServerSandbox } from "@thinktank/sandbox";
import type { CliIo } from "../cli-command.js";
import { loadCliConfig } from "./cli-config.js";

/** What the `mcp` subcommands work with: the config, the configured servers, and a manager over them. */
export interface McpCliContext {
  readonly config: Config;
  readonly entries: Readonly<Record<string, McpServerEntry>>;
  /** Entries switched off with `enabled: false` (listed, never connected). */
  readonly disabled: readonly string[];
  readonly manager: McpManager;
  /** Stops the servers (the manager) and the sandbox a sandboxed server started in. */
  close(): Promise<void>;
}

/**
 * Loads config.yaml (THINKTANK_CONFIG, else ./config.yaml), reads the servers of
 * extensions_config.json through the store (read-only), adds the enabled plugins' servers as
 * `<plugin>:<server>` (a configured name wins), and builds a manager over them.
 */
export async function openMcpContext(io: CliIo): Promise<McpCliContext> {
  const config = loadCliConfig(io);
  const entries = fs.existsSync(config.extensions_config) ? await readServers(config) : {};
  const disabled = Object.entries(entries)
    .filter(([, entry]) => entry.enabled === false)
    .map(([name]) => name)
    .sort();
  // Servers marked sandbox: true start in a sandbox executor made on their first start only.
  const stdioSandbox = createStdioServerSandbox(config);
  const manager = new McpManager({ mcp: config.mcp, env: config.env, oauthStore: createOAuthTokenStore(config), hostConfinement: hostConfinementFor(config), stdioSandbox }, entries);
  const close = async (): Promise<void> => {
    await manager.close();
    await stdioSandbox.close();
  };
  return { config, entries, disabled, manager, close };
}

async function readServers(config: Config): Promise<Record<string, McpServerEntry>> {
  const store = new ExtensionsStore(config.extensions_config);
  const configured = structuredClone((await store.read()).document.mcpServers) as Record<string, McpServerEntry>;
  const plugins = new PluginSnapshotter({ pluginsDir: config.plugins.path, watch: false, settings: store, env: config.env, hostPrograms: config.plugins.host_programs, serviceSecrets: serviceSecretVariables(config), sandboxedStdio: true });
  try {
    const { servers } = await plugins.snapshot();
    return { ...structuredClone(servers.entries), ...configured };
  } finally {
    plugins.close();
  }
}

/**
 * A progress line on stderr while servers connect, only on a terminal (redrawn in place, cleared
 * at the end); nothing at all when stderr is a pipe or a file.
 */
export function connectProgressPrinter(io: CliIo): { start: (total: number) => void; onProgress: (progress: ConnectProgress) => void; finish: () => void } {
  if (!io.stderr.isTTY) return { start: () => {}, onProgress: () => {}, finish: () => {} };
  let drawn = false;
  return {
    start(total) {
      if (total === 0) return;
      io.stderr.write(`connecting to ${total} MCP server${total === 1 ? "" : "s"}...`);
      drawn = true;
    },
    onProgress(progress) {
      const mark = progress.status.state === "connected" ? "ok" : progress.status.state;
      io.stderr.write(`\r\x1b[2Kconnecting to MCP servers ${progress.done}/${progress.total}: ${progress.server} ${mark}`);
      drawn = true;
    },
    finish() {
      if (drawn) io.stderr.write("\r\x1b[2K");
    },
  };
}

import fs from "node:fs";
import { ExtensionsStore, serviceSecretVariables, type Config } from "@thinktank/core";
import type { McpServerEntry } from "@thinktank/mcp";
import { PluginSnapshotter } from "@thinktank/plugins";

const noServers: Readonly<Record<string, McpServerEntry>> = Object.freeze({});

/** The MCP server entries of the current snapshot, and how to stop watching. */
export interface ServerEntriesSource {
  /** The configured servers plus the enabled plugins' servers (`<plugin>:<server>`; a configured name wins). The same object while nothing changed. */
  read(): Promise<Readonly<Record<string, McpServerEntry>>>;
  /**
   * One user's own remote servers (`users.<id>.mcpServers` in extensions_config.json), keyed
   * `~<name>` (userServerName), stdio entries left out; the same object while they are unchanged.
   * @default none: users have no servers of their own
   */
  readUser?(user: string): Promise<Readonly<Record<string, McpServerEntry>>>;
  close(): void;
}

/**
 * Reads the servers from extensions_config.json (read-only, through the store: one stat while
 * unchanged) and the enabled plugins' `.mcp.json` files (the plugin snapshot). No file means no
 * servers, not an error: the gateway creates it on its first write.
 */
export function serverEntriesSource(config: Pick<Config, "extensions_config" | "plugins" | "env" | "models" | "search" | "web_search">): ServerEntriesSource {
  const store = new ExtensionsStore(config.extensions_config);
  const plugins = new PluginSnapshotter({ pluginsDir: config.plugins.path, watch: false, settings: store, env: config.env, hostPrograms: config.plugins.host_programs, serviceSecrets: serviceSecretVariables(config) });
  let last: { document: unknown; plugins: unknown; entries: Readonly<Record<string, McpServerEntry>> } | undefined;
  return {
    async read() {
      if (!fs.existsSync(config.extensions_config)) {
        last = undefined;
        return noServers;
      }
      const { document } = await store.read();
      const snapshot = await plugins.snapshot();
      if (last && last.document === document && last.plugins === snapshot) return last.entries;
      const entries = { ...structuredClone(snapshot.servers.entries), ...(structuredClone(document.mcpServers ?? {}) as Record<string, McpServerEntry>) };
      last = { document, plugins: snapshot, entries };
      return entries;
    },
    close() {
      plugins.close();
    },
  };
}

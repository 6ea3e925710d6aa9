import type { ServerEntriesSource } from "@thinktank/codemode";
import type { ExtensionsStore } from "@thinktank/core";
import { stableStringify, userServerEntries, type McpServerEntry } from "@thinktank/mcp";
import type { PluginSnapshotter } from "@thinktank/plugins";

/**
 * The MCP servers of the current snapshot for the code-mode runtime: configured `mcpServers`
 * plus the enabled plugins' servers (`<plugin>:<server>`; a configured name wins). Built on the
 * agent's own store and plugin snapshotter, so one request reads each file once. The same object
 * while the entries are the same, which is what lets the runtime skip the MCP manager's sync.
 */
export function runtimeServerEntries(store: ExtensionsStore, plugins: PluginSnapshotter): ServerEntriesSource {
  let last: { document: unknown; plugins: unknown; key: string; entries: Readonly<Record<string, McpServerEntry>> } | undefined;
  const users = new Map<string, { section: unknown; entries: Readonly<Record<string, McpServerEntry>> }>();
  return {
    /** A user's own servers (`users.<id>.mcpServers`) as `~<name>`; a stdio entry (a hand edit: the gateway refuses them) is left out. */
    async readUser(user) {
      const { document } = await store.read();
      const section = (document.users as Readonly<Record<string, { readonly mcpServers?: unknown }>> | undefined)?.[user]?.mcpServers;
      const cached = users.get(user);
      if (cached && cached.section === section) return cached.entries;
      const entries = structuredClone(userServerEntries(document.users, user));
      const frozen = cached && stableStringify(cached.entries) === stableStringify(entries) ? cached.entries : Object.freeze(entries);
      users.set(user, { section, entries: frozen });
      return frozen;
    },
    async read() {
      const [{ document }, snapshot] = await Promise.all([store.read(), plugins.snapshot()]);
      if (last && last.document === document && last.plugins === snapshot) return last.entries;
      const configured = structuredClone(document.mcpServers ?? {}) as Record<string, McpServerEntry>;
      const entries = { ...structuredClone(snapshot.servers.entries), ...configured };
      const key = stableStringify(entries);
      // A change elsewhere (a skill enabled, a plugin's command edited) keeps the same entries object.
      last = { document, plugins: snapshot, key, entries: last?.key === key ? last.entries : Object.freeze(entries) };
      return last.entries;
    },
    close() {
      // The plugin snapshotter belongs to the runtime, which closes it.
    },
  };
}

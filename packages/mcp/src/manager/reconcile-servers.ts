import type { McpServerEntry } from "../servers/server-entry.js";
import { ManagedServer, type ManagedServerContext } from "./managed-server.js";
import type { SyncReport } from "./manager-types.js";

/** What a set of servers does with those that go away or are replaced (their sessions, caches, users' copies). */
export interface ReconcileActions {
  removed(name: string, server: ManagedServer): void;
  replaced(name: string, current: ManagedServer, next: ManagedServer): void;
}

/**
 * Brings `servers` to `entries` (disabled ones left out), the one way McpManager.sync and a user's
 * own servers adopt a new configuration: a server whose resolved config (its key) is unchanged
 * keeps its session and takes the new entry; a changed one is replaced by a new ManagedServer and
 * a missing one dropped, each handed to `actions`. Answers the names per outcome, sorted.
 */
export function reconcileServers(servers: Map<string, ManagedServer>, entries: Readonly<Record<string, McpServerEntry>>, context: ManagedServerContext, actions: ReconcileActions): SyncReport {
  const report = { added: [] as string[], removed: [] as string[], changed: [] as string[], unchanged: [] as string[] };
  const wanted = new Map(Object.entries(entries).filter(([, entry]) => entry && entry.enabled !== false));
  for (const [name, server] of servers) {
    if (wanted.has(name)) continue;
    servers.delete(name);
    actions.removed(name, server);
    report.removed.push(name);
  }
  for (const [name, entry] of wanted) {
    const current = servers.get(name);
    const next = new ManagedServer(name, entry, context);
    if (current && current.key === next.key) {
      current.updateEntry(entry);
      report.unchanged.push(name);
      continue;
    }
    servers.set(name, next);
    if (!current) {
      report.added.push(name);
      continue;
    }
    report.changed.push(name);
    actions.replaced(name, current, next);
  }
  return { added: report.added.sort(), removed: report.removed.sort(), changed: report.changed.sort(), unchanged: report.unchanged.sort() };
}

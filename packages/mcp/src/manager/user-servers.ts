import { ThinktankError } from "@thinktank/core";
import type { OAuthTokenStore } from "../oauth/oauth-token-store.js";
import type { McpServerEntry } from "../servers/server-entry.js";
import { transportKindOf } from "../servers/transport-kind.js";
import { ManagedServer } from "./managed-server.js";
import type { ManagedServerContext } from "./managed-server.js";
import type { ServerStatus, SyncReport } from "./manager-types.js";
import { reconcileServers } from "./reconcile-servers.js";
import { ServerDiscovery } from "./server-discovery.js";

/** What starts a user's own server's name, so it never collides with a configured one or a plugin's (both start with a letter or digit). */
export const userServerPrefix = "~";

/** The name a user's own server (`users.<id>.mcpServers.<name>` in extensions_config.json) has for them: `~<name>`. */
export function userServerName(name: string): string {
  return `${userServerPrefix}${name}`;
}

export interface UserServersOptions {
  readonly user: string;
  /** The manager's context; the user's sessions get a copy bound to the user's tokens. */
  readonly context: ManagedServerContext;
  readonly oauthStore: OAuthTokenStore | undefined;
  /** The shared servers as they are now. */
  readonly shared: () => Iterable<ManagedServer>;
  readonly concurrency: number;
  readonly graceMs: number;
}

/**
 * One user's side of the MCP manager: their own ManagedServer of every shared server whose
 * sessions carry a user's credentials (ManagedServer.perUser: remote servers that sign in with
 * OAuth), bound to the user's tokens, and the remote servers the user added themselves (named
 * `~<name>`). Shared servers that carry no user's credentials (stdio, a configured Authorization
 * header, client_credentials) are used as they are: one session for everyone. A user's sessions
 * never read or write the shared tool-list cache (their tools are known once they connected) and
 * send no tools-changed events; the user's background discovery runs apart from the operator's.
 */
export class UserServers {
  readonly user: string;
  /** When the manager last reached this user's servers (the manager's clock); idle users are closed. */
  lastUsed = 0;
  private readonly context: ManagedServerContext;
  private readonly instances = new Map<string, ManagedServer>();
  private readonly own = new Map<string, ManagedServer>();
  private readonly discovery: ServerDiscovery;
  private ownEntries: Readonly<Record<string, McpServerEntry>> | undefined;

  constructor(private readonly options: UserServersOptions) {
    this.user = options.user;
    this.context = {
      ...options.context,
      ...(options.oauthStore ? { oauthStore: options.oauthStore.forUser(options.user) } : {}),
      writeCatalog: false,
      readCache: false,
      emitToolsChanged: () => undefined,
    };
    this.discovery = new ServerDiscovery({
      servers: () => this.all(),
      concurrency: options.concurrency,
      graceMs: options.graceMs,
      now: options.context.now,
      track: options.context.track,
    });
  }

  /** The session this user gets of a shared server: their own when it carries a user's credentials, else the shared one. */
  instanceOf(shared: ManagedServer): ManagedServer {
    if (!shared.perUser) return shared;
    const mine = this.instances.get(shared.name);
    if (mine && mine.key === shared.key) {
      mine.updateEntry(shared.currentEntry);
      return mine;
    }
    if (mine) this.context.track(mine.dispose(false));
    const made = new ManagedServer(shared.name, shared.currentEntry, this.context);
    this.instances.set(shared.name, made);
    return made;
  }

  /** A server the user added, by its `~<name>`. */
  ownServer(name: string): ManagedServer | undefined {
    return this.own.get(name);
  }

  /** The names of the user's own servers, sorted. */
  ownNames(): string[] {
    return [...this.own.keys()].sort();
  }

  /**
   * Adopts the user's own servers (keyed `~<name>`; disabled ones left out), as McpManager.sync
   * does for the shared ones. A stdio entry is never started for a user (it would run a program on
   * the host): it is refused with FORBIDDEN, as is a name without the `~` prefix.
   */
  sync(entries: Readonly<Record<string, McpServerEntry>>): SyncReport {
    if (entries === this.ownEntries) return { added: [], removed: [], changed: [], unchanged: this.ownNames() };
    for (const [name, entry] of Object.entries(entries)) {
      if (!entry || entry.enabled === false) continue;
      if (!name.startsWith(userServerPrefix)) throw new ThinktankError("FORBIDDEN", `a user's own MCP server is named '${userServerPrefix}<name>', not '${name}'`, { details: { server: name } });
      if (transportKindOf(entry) === "stdio") throw new ThinktankError("FORBIDDEN", `MCP server '${name}': a user may add only remote (http or sse) servers; stdio servers are an administrator's`, { details: { server: name } });
    }
    this.ownEntries = entries;
    return reconcileServers(this.own, entries, this.context, {
      removed: (_name, server) => this.context.track(server.dispose(false)),
      replaced: (_name, current) => this.context.track(current.dispose(false)),
    });
  }

  /** The statuses of the user's own sessions and own servers as they stand, sorted by name; makes nothing. */
  statuses(): ServerStatus[] {
    return [...this.instances.values(), ...this.own.values()].map((server) => server.status()).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Drops the user's session of a shared server that changed or went away (the next use makes a new one). */
  forget(name: string): void {
    const mine = this.instances.get(name);
    if (!mine) return;
    this.instances.delete(name);
    this.context.track(mine.dispose(false));
  }

  /** Starts the user's background discovery (their sessions of shared servers, and their own servers). */
  discoverInBackground(): string[] {
    return this.discovery.start();
  }

  firstConnectsSettled(): Promise<void> {
    return this.discovery.firstConnectsSettled();
  }

  /** Every ManagedServer of this user's own (their sessions of per-user shared servers, made now if need be, and their own servers). */
  private *all(): Iterable<ManagedServer> {
    for (const shared of this.options.shared()) if (shared.perUser) yield this.instanceOf(shared);
    yield* this.own.values();
  }

  async settled(): Promise<void> {
    await Promise.all([...this.instances.values(), ...this.own.values()].map((server) => server.settled()));
  }

  async close(): Promise<void> {
    this.discovery.close();
    const servers = [...this.instances.values(), ...this.own.values()];
    this.instances.clear();
    this.own.clear();
    await Promise.allSettled(servers.map((server) => server.dispose(false)));
  }
}

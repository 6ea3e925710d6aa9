import fs from "node:fs";
import path from "node:path";
import { buildCodeApiIndex, generateCodeApi, type CodeApiIndex } from "@thinktank/codegen";
import { operatorId, userCodeApiDir } from "@thinktank/core";
import type { CatalogServer, CatalogTool, ManagerLogger, ToolSearchOverlay } from "@thinktank/mcp";
import type { ToolInvoker } from "../invoker/tool-invoker.js";
import type { CodeModeCatalog } from "./code-mode-catalog.js";

/** Where the sandbox mounts a program's user's own code API (their own servers' wrappers). */
export const userCodeApiMountPath = "/mnt/my-code-api";

export interface UserCatalogsOptions {
  /** The shared catalog (the operator's view, one for everyone). */
  readonly shared: CodeModeCatalog;
  /** The tool sources, in priority order (as the shared catalog's). */
  readonly invokers: readonly ToolInvoker[];
  /**
   * config.code_execution.code_api_dir: each user's own code API goes beside it (userCodeApiDir),
   * never in it. The users' folder is never mounted whole: a program gets its own user's only.
   */
  readonly codeApiDir: string;
  /** Generate the wrappers. @default true */
  readonly generate?: boolean;
  readonly logger: ManagerLogger;
  /** Users kept in memory; the least recently used are dropped (and rebuilt on their next request). @default 256 */
  readonly maxUsers?: number;
}

/**
 * What one user sees beyond the shared catalog: the servers only they see with tools known to
 * them (their own `~<name>` servers, and a shared server whose tools only their own session has
 * listed, as one that signs in per user), sorted by name.
 */
export interface UserCatalog {
  readonly user: string;
  readonly servers: readonly CatalogServer[];
  /** Their servers for search_tools, beside the shared index. */
  readonly overlay: ToolSearchOverlay;
  /** Their own code API on the host (mounted at userCodeApiMountPath for their programs only). */
  readonly dir: string;
  /** Names and paths of their servers' wrappers (folder names the shared code API leaves free). */
  names(): CodeApiIndex;
  /** A value computed from this view and `base` (a shared value), kept while both are unchanged. */
  derived<T extends object>(base: object, compute: () => T): T;
}

interface UserState {
  view: UserCatalog;
  generatedFor?: { servers: readonly CatalogServer[]; alongside: CodeApiIndex };
  generation?: Promise<void>;
  lastError?: string;
}

/**
 * The small per-user part of code mode's catalog: per user, their own servers' search overlay and
 * code API, made from the tool lists the invokers know for them. The shared index and code API stay
 * one for everyone; a user with no servers of their own costs one pass over the server names that
 * are not in the shared catalog. No other user's view, search or program ever reaches them.
 */
export class UserCatalogs {
  private readonly states = new Map<string, UserState>();

  constructor(private readonly options: UserCatalogsOptions) {}

  /**
   * The user's view now, or undefined when they see nothing beyond the shared catalog (always for
   * the operator, whose sessions are the shared ones). Cheap while nothing changed.
   */
  view(user: string | undefined): UserCatalog | undefined {
    if (user === undefined || user === operatorId) return undefined;
    const servers = this.serversOf(user);
    const state = this.states.get(user);
    if (state && sameLists(state.view.servers, servers)) {
      this.states.delete(user);
      this.states.set(user, state); // most recently used last
      return state.view;
    }
    if (servers.length === 0) {
      if (state) this.forget(user, state);
      return undefined;
    }
    const view = this.makeView(user, servers, state?.view);
    this.states.delete(user);
    this.states.set(user, { ...(state ?? {}), view });
    this.dropLeastRecent();
    return view;
  }

  /**
   * Resolves once the user's code API on disk matches their view (generating it when needed, never
   * for a call); the message of a failed generation, if it failed.
   */
  async codeApiReady(view: UserCatalog): Promise<string | undefined> {
    const state = this.states.get(view.user);
    if (!state || this.options.generate === false) return undefined;
    while (!this.upToDate(state)) {
      if (!state.generation) {
        const servers = state.view.servers;
        const alongside = this.options.shared.codeApiIndex();
        state.generation = generateCodeApi({ servers, outDir: state.view.dir, mountPath: userCodeApiMountPath, alongside })
          .then(
            () => {
              state.generatedFor = { servers, alongside };
              state.lastError = undefined;
            },
            (error: unknown) => {
              state.lastError = `the code API of your own servers could not be generated: ${(error as Error).message}`;
              this.options.logger.error({ err: String(error) }, "a user's code API generation failed");
            },
          )
          .finally(() => (state.generation = undefined));
      }
      const failed = await state.generation.then(() => state.lastError);
      if (failed) return failed;
    }
    return undefined;
  }

  /** Generated for the current view and shared names, and still on disk (another process or a person may have removed it). */
  private upToDate(state: UserState): boolean {
    if (state.generatedFor?.servers !== state.view.servers || state.generatedFor.alongside !== this.options.shared.codeApiIndex()) return false;
    if (fs.existsSync(path.join(state.view.dir, "manifest.json"))) return true;
    state.generatedFor = undefined;
    this.makeFolder(state.view.dir);
    return false;
  }

  /** The servers `user` sees that the shared catalog has no tools for, with the tools known to them. */
  private serversOf(user: string): CatalogServer[] {
    const shared = this.options.shared;
    const known = new Set(shared.catalog().map((entry) => entry.server));
    const servers: CatalogServer[] = [];
    const seen = new Set<string>();
    for (const invoker of this.options.invokers) {
      for (const server of invoker.serverNames(user)) {
        if (known.has(server) || seen.has(server)) continue;
        seen.add(server);
        // The source that owns a shared server answers for it; a user's own server has one source.
        const tools: readonly CatalogTool[] | undefined = (shared.invokerFor(server) ?? invoker).knownTools(server, user);
        if (tools) servers.push({ server, tools });
      }
    }
    return servers.sort((a, b) => (a.server < b.server ? -1 : 1));
  }

  private makeView(user: string, servers: readonly CatalogServer[], previous: UserCatalog | undefined): UserCatalog {
    const shared = this.options.shared;
    let names: { alongside: CodeApiIndex; index: CodeApiIndex } | undefined;
    const memo = new WeakMap<object, object>();
    const view: UserCatalog = {
      user,
      servers,
      dir: userCodeApiDir(this.options.codeApiDir, user),
      names: () => {
        const alongside = shared.codeApiIndex();
        if (names?.alongside !== alongside) names = { alongside, index: buildCodeApiIndex(servers, { mountPath: userCodeApiMountPath, alongside }) };
        return names.index;
      },
      overlay: shared.search.overlay(servers, {
        ...(previous ? { previous: previous.overlay } : {}),
        wrapperPath: (server, tool) => view.names().find(server, tool)?.wrapperPath ?? `${userCodeApiMountPath}/servers/${server}/${tool}.ts`,
      }),
      derived: <T extends object>(base: object, compute: () => T): T => {
        let value = memo.get(base) as T | undefined;
        if (value === undefined) memo.set(base, (value = compute()));
        return value;
      },
    };
    this.makeFolder(view.dir);
    return view;
  }

  /** A user's folder under the root; the root is traversable, not listable: a user's folder is found only by its hash. */
  private makeFolder(dir: string): void {
    fs.mkdirSync(path.dirname(dir), { recursive: true, mode: 0o711 });
    fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  }

  /** The user sees nothing beyond the shared catalog any more: their wrappers go. */
  private forget(user: string, state: UserState): void {
    this.states.delete(user);
    void (state.generation ?? Promise.resolve()).then(() => fs.rmSync(state.view.dir, { recursive: true, force: true }));
  }

  private dropLeastRecent(): void {
    const max = this.options.maxUsers ?? 256;
    for (const user of this.states.keys()) {
      if (this.states.size <= max) break;
      this.states.delete(user);
    }
  }
}

/** The same servers with the same tool arrays (tool lists are replaced, never changed in place). */
function sameLists(a: readonly CatalogServer[], b: readonly CatalogServer[]): boolean {
  return a.length === b.length && a.every((server, at) => server.server === b[at]?.server && server.tools === b[at]?.tools);
}

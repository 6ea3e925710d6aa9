import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { isThinktankError, ThinktankError, type Config, type ErrorCode } from "@thinktank/core";
import type { ManagerLogger } from "@thinktank/mcp";
import type { SandboxExecutor, SandboxResult } from "@thinktank/sandbox";
import { ArgumentValidator } from "./bridge/argument-validator.js";
import { ToolBridge } from "./bridge/tool-bridge.js";
import { CodeModeCatalog } from "./catalog/code-mode-catalog.js";
import { UserCatalogs, userCodeApiMountPath, type UserCatalog } from "./catalog/user-catalogs.js";
import type { CodeLanguage, ExecuteCodeInput, ExecuteCodeResult, ExecutionAsk, ExecutionPlace, SearchToolsHit, SearchToolsInput, ServerSummary } from "./code-mode-types.js";
import { bundleProgram } from "./execute/bundle-program.js";
import { serversNamedIn } from "./execute/servers-named-in.js";
import { validateExecuteInput } from "./execute/validate-execute-input.js";
import type { DiscoverOptions, ToolInvoker } from "./invoker/tool-invoker.js";
import { CallReplay } from "./replay/call-replay.js";
import { ReplayStore } from "./replay/replay-store.js";
import { userBoundInvoker } from "./invoker/user-bound-invoker.js";
import type { CodeModeToolSettings } from "./surface/code-mode-tool-specs.js";
import { presentSearchHit } from "./surface/present-search-hit.js";

/** The parts of the configuration code mode reads. */
export type CodeModeConfig = Pick<Config, "code_execution" | "search">;

export interface CodeModeOptions {
  readonly config: CodeModeConfig;
  /** Runs programs (config.sandbox.backend); code mode never falls back to another backend. */
  readonly executor: SandboxExecutor;
  /** Tool sources in priority order (the MCP manager's servers; registered script tools later). */
  readonly invokers: readonly ToolInvoker[];
  /** Folder for the per-execution bridge sockets; keep the path short (Unix sockets allow ~100 bytes). @default a private folder under os.tmpdir(), removed by close() */
  readonly runtimeDir?: string;
  /** @default a logger that drops everything */
  readonly logger?: ManagerLogger;
  /** Hosts programs may reach through the sandbox's egress proxy (config.sandbox.network.allow). @default none */
  readonly network?: readonly string[];
  /** Generate the code API into config.code_execution.code_api_dir when tool lists change. @default true */
  readonly generateCodeApi?: boolean;
  /** Largest program execute_code accepts. @default 1 MiB */
  readonly maxCodeBytes?: number;
  /** Calls kept in one execution's tools_called. @default 100 */
  readonly maxToolCallRecords?: number;
  /** Thread whose workspace a program gets when the caller names none. @default "default" */
  readonly defaultThreadId?: string;
  /** @default performance.now */
  readonly now?: () => number;
  /** Where a program paused for input keeps the record of its calls until it resumes (ReplayStore); the agent uses `<data_dir>/code-mode/replays`, shared by replicas. @default `replays` in runtimeDir (this process only) */
  readonly replayDir?: string;
}

/** Carries what paused an execution out of executeCode's catch-all. */
class PauseEscape {
  constructor(readonly error: unknown) {}
}

const silentLogger: ManagerLogger = { debug() {}, info() {}, warn() {}, error() {} };
/** Where the sandbox mounts the code API (docs/code-api.md). */
export const codeApiMountPath = "/mnt/code-api";

/**
 * Code execution with MCP: the three tools the model gets in code mode, as a library.
 * - `listServers()`: the enabled servers, without schemas;
 * - `searchTools()`: ranked search over their tools, with wrapper paths at detail "full";
 * - `executeCode()`: a TypeScript, JavaScript or Python program in the sandbox, with the
 *   generated code API mounted at /mnt/code-api and the bridge as its only way out.
 * Used by the agent's tool surface, the /mcp endpoint and `thinktank exec`.
 */
export class CodeMode {
  readonly catalog: CodeModeCatalog;
  /** Per user, the servers only they see (their own `~<name>` ones): search overlay and code API. */
  readonly users: UserCatalogs;
  private readonly validator: ArgumentValidator;
  private readonly logger: ManagerLogger;
  private readonly now: () => number;
  private readonly runtimeDir: string;
  private readonly ownsRuntimeDir: boolean;
  private readonly unsubscribe: (() => void)[] = [];
  private readonly bridges = new Set<ToolBridge>();
  private readonly replays: ReplayStore;
  private closed = false;

  constructor(private readonly options: CodeModeOptions) {
    this.logger = options.logger ?? silentLogger;
    this.now = options.now ?? (() => performance.now());
    this.ownsRuntimeDir = options.runtimeDir === undefined;
    this.runtimeDir = options.runtimeDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "tt-bridge-"));
    fs.mkdirSync(this.runtimeDir, { recursive: true, mode: 0o700 });
    this.replays = new ReplayStore({ dir: options.replayDir ?? path.join(this.runtimeDir, "replays") });
    const { code_execution: execution, search } = options.config;
    this.catalog = new CodeModeCatalog({
      invokers: options.invokers,
      codeApiDir: execution.code_api_dir,
      mountPath: codeApiMountPath,
      defaultLimit: search.default_limit,
      maxLimit: search.max_limit,
      generate: options.generateCodeApi ?? true,
      logger: this.logger,
    });
    this.users = new UserCatalogs({
      shared: this.catalog,
      invokers: options.invokers,
      codeApiDir: execution.code_api_dir,
      generate: options.generateCodeApi ?? true,
      logger: this.logger,
    });
    this.validator = new ArgumentValidator({
      onSchemaProblem: (tool, reason) => this.logger.warn({ tool: tool.name, reason }, "a tool's inputSchema cannot be compiled; its calls are not checked"),
    });
    for (const invoker of options.invokers) {
      const off = invoker.onToolsChanged?.(() => this.catalog.refresh());
      if (off) this.unsubscribe.push(off);
    }
    this.catalog.refresh();
  }

  /** The settings the tools' definitions mention (timeouts, search limits, the stdout cap). */
  toolSettings(): CodeModeToolSettings & { readonly maxStdoutBytes: number } {
    const { code_execution: execution, search } = this.options.config;
    return {
      defaultTimeoutSeconds: execution.timeout_seconds,
      maxTimeoutSeconds: execution.max_timeout_seconds,
      defaultLimit: search.default_limit,
      maxLimit: search.max_limit,
      maxStdoutBytes: execution.max_stdout_bytes,
      ...(this.options.network && this.options.network.length > 0 ? { network: this.options.network } : {}),
    };
  }

  /** Connects servers whose tools are not known yet (waiting for them), then brings the search index and the code API up to date. */
  async prepare(): Promise<void> {
    await this.discover({ complete: true });
    await this.catalog.codeApiReady();
  }

  /**
   * list_servers: every enabled server with its transport, status and tool count; no schemas, never
   * connects. With `user` (a caller's id): as they see them (their sign-ins), their own servers included;
   * with `servers`, only those it lets through.
   */
  listServers(user?: string, servers?: (server: string) => boolean): ServerSummary[] {
    this.catalog.refresh();
    return this.serverNamesOf(user, servers).map((server) => (this.invokerOf(server, user) as ToolInvoker).describe(server));
  }

  /**
   * search_tools: ranked search over the known tools of the enabled servers. Servers never listed
   * start connecting in the background first (waiting only within a new server's short grace, never
   * for a server that does not answer). With `user` (a caller's id): also the servers only they see
   * (their own), ranked with the shared ones. Throws VALIDATION_FAILED for bad input and
   * MCP_SERVER_NOT_FOUND for an unknown server (and one `servers` does not let through).
   */
  async searchTools(input: SearchToolsInput, user?: string, servers?: (server: string) => boolean): Promise<SearchToolsHit[]> {
    if (input.server !== undefined && servers && !servers(input.server)) {
      throw new ThinktankError("MCP_SERVER_NOT_FOUND", `unknown server '${input.server}'; known servers: ${this.serverNamesOf(user, servers).join(", ") || "(none)"}`);
    }
    await this.discover(user === undefined ? {} : { user });
    this.catalog.refresh();
    const own = this.users.view(user);
    const unknown = input.server !== undefined && !this.catalog.search.serverNames().includes(input.server) && !own?.overlay.serverNames().includes(input.server);
    const owner = input.server === undefined ? undefined : this.invokerOf(input.server, user);
    if (unknown && owner && input.server !== undefined) {
      const summary = owner.describe(input.server);
      throw new ThinktankError("SERVICE_UNAVAILABLE", `the tools of server '${input.server}' are not known: it is ${summary.status}${summary.reason ? ` (${summary.reason})` : ""}`);
    }
    const hits = this.catalog.search.search(input.query, {
      ...(input.server !== undefined ? { server: input.server } : {}),
      ...(input.detail !== undefined ? { detail: input.detail } : {}),
      ...(input.limit !== undefined ? { limit: input.limit } : {}),
      ...(own ? { overlay: own.overlay } : {}),
      ...(servers ? { servers } : {}),
    });
    if (input.detail !== "full") return hits.map((hit) => presentSearchHit(hit, undefined));
    const names = this.catalog.codeApiIndex();
    return hits.map((hit) => presentSearchHit(hit, names.find(hit.server, hit.name) ?? own?.names().find(hit.server, hit.name)));
  }

  /**
   * execute_code: bundles (TypeScript/JavaScript) and runs the program in the sandbox with the
   * thread's workspace, the code API and a bridge of its own. Never throws: every failure comes
   * back in `error` (bad input, a build error, a timeout, a limit, no sandbox). Aborting
   * `place.signal` kills the program's process tree and answers CANCELLED once it is gone.
   * With `ask`, a tool that answers input_required asks through it; when it throws to pause, the
   * program is stopped and executeCode rethrows that (the one throw), after recording the calls
   * made so far under `ask.replayKey` for the resumed run to replay (ExecutionAsk).
   */
  async executeCode(input: ExecuteCodeInput, place: ExecutionPlace = {}, ask?: ExecutionAsk): Promise<ExecuteCodeResult> {
    const started = this.now();
    const finish = (fields: Partial<ExecuteCodeResult>, code?: ErrorCode, message?: string): ExecuteCodeResult => ({
      exit_code: null,
      stdout: "",
      stderr: "",
      tools_called: [],
      ...fields,
      duration_ms: Math.round(this.now() - started),
      ...(code && message ? { error: { code, message } } : {}),
    });
    try {
      if (this.closed) return finish({}, "SERVICE_UNAVAILABLE", "code mode has been shut down");
      const { code_execution: execution } = this.options.config;
      const valid = validateExecuteInput(input, {
        defaultTimeoutSeconds: execution.timeout_seconds,
        maxTimeoutSeconds: execution.max_timeout_seconds,
        maxCodeBytes: this.options.maxCodeBytes ?? 1024 * 1024,
      });
      if (!valid.ok) return finish({}, "VALIDATION_FAILED", valid.message);
      this.catalog.refresh();
      const user = place.userId;
      // Only the servers the program names are waited for (their wrappers must exist to build it);
      // any other connects when the program calls it, so a program that calls nothing starts at once.
      const named = serversNamedIn(valid.code, this.serverNamesOf(user, place.servers));
      await this.discover({ servers: named, ...(user !== undefined ? { user } : {}) });
      // The user's own servers' wrappers, for their programs alone (never in the shared folder).
      const own = this.users.view(user);
      const generationProblem = (await this.catalog.codeApiReady()) ?? (own ? await this.users.codeApiReady(own) : undefined);
      let source = valid.code;
      if (valid.language !== "python") {
        const bundle = await bundleProgram({
          code: valid.code,
          language: valid.language,
          codeApiDir: execution.code_api_dir,
          mountPath: codeApiMountPath,
          ...(own ? { own: { dir: own.dir, mountPath: userCodeApiMountPath } } : {}),
        });
        if (!bundle.ok) {
          const notes = [generationProblem, ...this.unknownServers(named, user)].filter((note) => note !== undefined);
          const message = [bundle.message, ...notes.map((note) => `(${note})`)].join("\n");
          return finish({ stderr: `${message}\n` }, "CODE_BUILD_FAILED", "the program could not be built; see stderr");
        }
        source = bundle.source;
      }
      const workspaceDir = this.workspaceOf(place);
      const replayKey = ask?.replayKey;
      const replay = new CallReplay(replayKey !== undefined ? this.replays.load(replayKey) : []);
      const pause = new AbortController();
      const runSignal = ask ? (place.signal ? AbortSignal.any([place.signal, pause.signal]) : pause.signal) : place.signal;
      const bridge = await ToolBridge.open({
        // A server the place may not reach is unknown to the program.
        router: { find: (server) => (place.servers && !place.servers(server) ? undefined : this.invokerOf(server, user)), serverNames: () => this.serverNamesOf(user, place.servers) },
        validator: this.validator,
        socketPath: path.join(this.runtimeDir, `${crypto.randomBytes(8).toString("hex")}.sock`),
        now: this.now,
        ...(this.options.maxToolCallRecords !== undefined ? { maxRecords: this.options.maxToolCallRecords } : {}),
        ...(ask
          ? { input: { ask: ask.onInputRequired, pauses: ask.pauses ?? ((error: unknown) => !isThinktankError(error)), replay, onPause: () => pause.abort(new Error("paused for input")) } }
          : {}),
      });
      this.bridges.add(bridge);
      const stop = (): void => void bridge.close();
      place.signal?.addEventListener("abort", stop, { once: true });
      let result: SandboxResult;
      try {
        result = await this.options.executor.run({
          language: valid.language === "python" ? "python" : "javascript",
          source,
          workspaceDir,
          mounts: this.mounts(own),
          ...(valid.language === "python" ? { env: { PYTHONPATH: [codeApiMountPath, ...(own ? [userCodeApiMountPath] : [])].map((root) => `${root}/python`).join(":") } } : {}),
          bridgeSocket: bridge.socketPath,
          bridgeConnection: (socket) => bridge.accept(socket),
          bridgeToken: bridge.token,
          timeoutMs: valid.timeoutMs,
          ...(this.options.network && this.options.network.length > 0 ? { network: this.options.network, networkLabel: `execute_code ${place.threadId ?? "(no thread)"}` } : {}),
          // Cancelling (or a pause for input) kills the program with every process it started; its worker is never reused.
          ...(runSignal ? { signal: runSignal } : {}),
        });
      } finally {
        place.signal?.removeEventListener("abort", stop);
        await bridge.close();
        this.bridges.delete(bridge);
      }
      const paused = bridge.pausedBy();
      if (paused) {
        if (replayKey !== undefined) this.replays.save(replayKey, replay.calls());
        throw new PauseEscape(paused.error);
      }
      if (replayKey !== undefined && replay.replaying) this.replays.remove(replayKey);
      const calls = bridge.calls();
      return finish(
        {
          exit_code: result.exitCode,
          stdout: result.stdout,
          stderr: result.stderr,
          tools_called: calls.tools_called,
          ...(calls.omitted > 0 ? { tools_called_omitted: calls.omitted } : {}),
          ...(replay.replaying ? { replay: replay.summary() } : {}),
        },
        result.error?.code,
        result.error?.message,
      );
    } catch (error) {
      if (error instanceof PauseEscape) throw error.error;
      const code = error instanceof ThinktankError ? error.code : "INTERNAL";
      this.logger.error({ err: String(error) }, "execute_code failed");
      return finish({}, code, (error as Error).message);
    }
  }

  /**
   * Starts sandbox workers for this place ahead of its first program (e.g. when a thread starts), so
   * execute_code does not wait for one. Never rejects.
   */
  async prewarm(place: ExecutionPlace = {}, language: CodeLanguage = "typescript"): Promise<void> {
    try {
      const workspaceDir = this.workspaceOf(place);
      fs.mkdirSync(this.options.config.code_execution.code_api_dir, { recursive: true });
      // With network patterns a run needs a worker that can reach the proxy: warm that kind.
      const network = this.options.network && this.options.network.length > 0 ? { network: this.options.network } : {};
      const own = this.users.view(place.userId);
      await this.options.executor.prewarm({ language: language === "python" ? "python" : "javascript", workspaceDir, mounts: this.mounts(own), ...network });
    } catch (error) {
      this.logger.warn({ err: String(error) }, "prewarming the sandbox failed");
    }
  }

  /**
   * The invoker that answers for `server` as `user` sees it, bound to them: the catalog's for a
   * shared server, else the one that lists it among the user's own. Without a user, the catalog's.
   */
  private invokerOf(server: string, user: string | undefined): ToolInvoker | undefined {
    const invoker = this.catalog.invokerFor(server) ?? (user === undefined ? undefined : this.options.invokers.find((candidate) => candidate.serverNames(user).includes(server)));
    return invoker && user !== undefined ? userBoundInvoker(invoker, user) : invoker;
  }

  /** The shared servers, then the user's own (searched and generated per user: UserCatalogs); only those `servers` lets through. */
  private serverNamesOf(user: string | undefined, servers?: (server: string) => boolean): string[] {
    const shared = this.catalog.serverNames();
    const known = new Set(shared);
    const own = user === undefined ? [] : this.options.invokers.flatMap((invoker) => invoker.serverNames(user).filter((server) => !known.has(server)));
    const all = own.length > 0 ? [...shared, ...own.sort()] : shared;
    return servers ? all.filter(servers) : all;
  }

  /** Finds servers never listed (see ToolInvoker.discover); a server known to be down is retried only after its backoff. */
  private async discover(options: DiscoverOptions = {}): Promise<void> {
    await Promise.all(this.options.invokers.map((invoker) => invoker.discover?.(options)));
  }

  /** Why the named servers whose tools are still unknown (to the user) have no wrappers (not connected, and why). */
  private unknownServers(servers: readonly string[], user: string | undefined): string[] {
    return servers.flatMap((server) => {
      const invoker = this.invokerOf(server, user);
      if (!invoker || invoker.knownTools(server) !== undefined) return [];
      const summary = invoker.describe(server);
      return [`the tools of server '${server}' are not known: it is ${summary.status}${summary.reason ? ` (${summary.reason})` : ""}`];
    });
  }

  /** The thread's workspace on the host (created on first use). */
  private workspaceOf(place: ExecutionPlace): string {
    return place.workspaceDir ?? this.options.executor.workspaceFor(place.threadId ?? this.options.defaultThreadId ?? "default");
  }

  /** The shared code API, and the user's own when they have servers of their own. */
  private mounts(own: UserCatalog | undefined): { hostPath: string; sandboxPath: string }[] {
    const shared = { hostPath: this.options.config.code_execution.code_api_dir, sandboxPath: codeApiMountPath };
    return own ? [shared, { hostPath: own.dir, sandboxPath: userCodeApiMountPath }] : [shared];
  }

  /** Stops listening for tool-list changes, closes running bridges and removes the socket folder. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const off of this.unsubscribe) off();
    await Promise.all([...this.bridges].map((bridge) => bridge.close()));
    if (this.ownsRuntimeDir) fs.rmSync(this.runtimeDir, { recursive: true, force: true });
  }
}

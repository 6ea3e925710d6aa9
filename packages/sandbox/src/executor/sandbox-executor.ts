import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defaultSearchPath, findExecutable, type ErrorCode, type SandboxBackend } from "@thinktank/core";
import { BubblewrapLauncher } from "../launch/bubblewrap-launcher.js";
import { DenoLauncher } from "../launch/deno-launcher.js";
import { joinCgroup } from "../launch/join-cgroup.js";
import type { Launcher, LaunchPlan, PlanResult, WorkerSpec } from "../launch/launch-plan.js";
import { LocalLauncher } from "../launch/local-launcher.js";
import { ExecutionCgroup, releaseParent } from "../limits/execution-cgroup.js";
import { memoryInfo, resolveMemoryScope, type MemoryScope } from "../limits/memory-scope.js";
import { RunSlots } from "../limits/run-slots.js";
import { WorkspaceQuota } from "../limits/workspace-quota.js";
import { defaultLimits } from "../request/resolve-limits.js";
import { validateRequest } from "../request/validate-request.js";
import type { RequestBounds, ValidRequest } from "../request/validate-request.js";
import { classifyOutcome } from "../result/classify-outcome.js";
import type { SandboxBackendInfo, SandboxCheck, SandboxExecutor, SandboxLanguage, SandboxLimitName, SandboxRequest, SandboxResult, SandboxWarmRequest } from "../sandbox-types.js";
import { encodeJob, type JobProgram } from "../worker/bootstraps.js";
import { SandboxWorker } from "../worker/sandbox-worker.js";
import { WarmPool } from "../worker/warm-pool.js";
import { createFreshWorkspace, removeFreshWorkspace } from "../workspaces/fresh-workspace.js";
import { createThreadWorkspace } from "../workspaces/thread-workspace.js";
import { RunEgress } from "../network/run-egress.js";
import { startServer } from "../servers/start-server.js";
import type { SandboxServerLaunch, SandboxServerRequest } from "../servers/server-types.js";
import { checkExecutor } from "./check-executor.js";
import type { SandboxExecutorOptions } from "./sandbox-executor-options.js";
import { bubblewrapWarning, probeLauncher, selectLauncher, type ConcreteBackend, type SelectedLauncher } from "./select-launcher.js";

/**
 * Creates the executor config.sandbox.backend names: `auto` (the default: bubblewrap when a real
 * bubblewrap sandbox starts on this host, else deno), `bubblewrap`, `deno`, or `local` (no
 * isolation, only when config.yaml says so). A named backend is never switched silently: when it
 * cannot run, runs fail with SANDBOX_UNAVAILABLE and the fix.
 */
export function createSandboxExecutor(options: SandboxExecutorOptions): SandboxExecutor {
  return new PooledSandboxExecutor(options);
}

class PooledSandboxExecutor implements SandboxExecutor {
  private readonly configured: SandboxBackend;
  private selected: SelectedLauncher | undefined;
  private readonly selection: Promise<SelectedLauncher>;
  /** For sandbox.backend: bubblewrap, why it cannot start a sandbox here (undefined when it can); asked once. */
  private namedProbe: Promise<string | undefined> | undefined;
  /** Whether executions get their own memory cgroup (found once per process). */
  private readonly memory: Promise<MemoryScope>;
  private readonly pool: WarmPool;
  private readonly slots: RunSlots;
  private readonly quota: WorkspaceQuota;
  private readonly bounds: RequestBounds;
  private readonly runtimeDir: string;
  private readonly ownsRuntimeDir: boolean;
  private readonly running = new Set<SandboxWorker>();
  /** The workspace each worker started with a fresh one has (see `SandboxRequest.freshWorkspace`). */
  private readonly freshWorkspaces = new WeakMap<SandboxWorker, string>();
  private readonly now: () => number;
  private readonly sandboxIds: { uid: number; gid: number };
  private readonly hostUid: number;
  /** The egress proxy and each run's session with it (runs with `network` patterns). */
  private readonly egress: RunEgress;
  private nextWorker = 0;
  private closed = false;

  constructor(private readonly options: SandboxExecutorOptions) {
    const { config } = options;
    this.configured = config.sandbox.backend;
    this.now = options.now ?? (() => performance.now());
    this.hostUid = options.hostUid ?? process.getuid?.() ?? 0;
    this.sandboxIds = { uid: 65534, gid: 65534, ...options.sandboxIds };
    this.ownsRuntimeDir = options.runtimeDir === undefined;
    this.runtimeDir = options.runtimeDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "thinktank-sandbox-"));
    fs.mkdirSync(this.runtimeDir, { recursive: true });
    // The sandbox user must reach the synthetic /etc and the workers' folders inside.
    fs.chmodSync(this.runtimeDir, 0o755);
    this.bounds = {
      defaultLimits: defaultLimits(config),
      defaultTimeoutMs: config.code_execution.timeout_seconds * 1000,
      maxTimeoutMs: config.code_execution.max_timeout_seconds * 1000,
    };
    this.pool = new WarmPool({
      size: config.sandbox.warm_pool_size,
      maxKeys: options.maxWarmKeys ?? 4,
      idleMs: options.warmIdleMs ?? 300_000,
    });
    this.slots = new RunSlots(config.sandbox.max_concurrent, config.sandbox.max_queued);
    this.quota = new WorkspaceQuota(config.sandbox.disk_quota_mb);
    this.egress = new RunEgress({ allowedPrivate: config.sandbox.network.allowed_private, allow: config.sandbox.network.allow, logger: options.logger, proxy: options.egress });
    this.selection = selectLauncher({
      configured: this.configured,
      make: (backend) => this.makeLauncher(backend),
      runtimeDir: this.runtimeDir,
      limits: this.bounds.defaultLimits,
      owner: this.sandboxOwner,
      bubblewrapInstalled: findExecutable(options.bwrapCommand ?? "bwrap", options.searchPath ?? defaultSearchPath) !== undefined,
    }).then((selected) => (this.selected = selected));
    this.memory = resolveMemoryScope({ enabled: options.memoryCgroups ?? true, hostUid: this.hostUid, searchPath: options.searchPath ?? defaultSearchPath });
  }

  get backend(): SandboxBackend {
    return this.selected?.info.backend ?? this.configured;
  }

  get runtimeFolder(): string {
    return this.runtimeDir;
  }

  async describeBackend(): Promise<SandboxBackendInfo> {
    const [{ launcher, info }, memory, problem] = await Promise.all([this.selection, this.memory, this.namedProblem()]);
    return { ...info, ...(problem ? { problem, warning: bubblewrapWarning("named", problem) } : {}), memory: memoryInfo(memory, info.backend, launcher.executionCgroup) };
  }

  /**
   * A named bubblewrap backend is never switched, so whether it can start a sandbox is asked once, the
   * first time the backend is described (the agent does at start-up), not before every executor's first run.
   */
  private namedProblem(): Promise<string | undefined> {
    if (this.configured !== "bubblewrap") return Promise.resolve(undefined);
    this.namedProbe ??= this.selection.then(({ launcher }) => probeLauncher(launcher, { runtimeDir: this.runtimeDir, limits: this.bounds.defaultLimits, owner: this.sandboxOwner }));
    return this.namedProbe;
  }

  async supportsEntry(language: SandboxLanguage): Promise<{ ok: true } | { ok: false; reason: string }> {
    const { launcher } = await this.selection;
    const reason = launcher.entryProblem(language);
    return reason === undefined ? { ok: true } : { ok: false, reason };
  }

  private makeLauncher(backend: ConcreteBackend): Launcher {
    const { options } = this;
    const common = {
      runtimeDir: this.runtimeDir,
      searchPath: options.searchPath ?? defaultSearchPath,
      nodePath: options.nodePath ?? process.execPath,
      pythonCommand: options.pythonCommand ?? "python3",
    };
    if (backend === "local") return new LocalLauncher(common);
    if (backend === "deno") return new DenoLauncher({ runtimeDir: this.runtimeDir, searchPath: common.searchPath, hostUid: this.hostUid, sandboxIds: this.sandboxIds, ...(options.denoRuntime ? { runtime: options.denoRuntime } : {}) });
    return new BubblewrapLauncher({ ...common, bwrapCommand: options.bwrapCommand ?? "bwrap", hostUid: this.hostUid, sandboxIds: this.sandboxIds });
  }

  /** Both isolating backends run programs as the sandbox user when the host is root: it owns the workspaces. */
  private get sandboxOwner(): { uid: number; gid: number } | undefined {
    return this.configured !== "local" && this.hostUid === 0 ? this.sandboxIds : undefined;
  }

  run(request: SandboxRequest): Promise<SandboxResult> {
    return this.execute(request, true);
  }

  async startServer(request: SandboxServerRequest): Promise<SandboxServerLaunch> {
    try {
      if (this.closed) return { ok: false, code: "SANDBOX_UNAVAILABLE", message: "The sandbox executor has been closed." };
      const [{ launcher, info }, memory] = await Promise.all([this.selection, this.memory]);
      const searchPath = this.options.searchPath ?? defaultSearchPath;
      return await startServer(request, { launcher, backend: info.backend, memory, egress: this.egress, workerId: `${process.pid}-server-${++this.nextWorker}`, searchPath, runtimeDir: this.runtimeDir });
    } catch (error) {
      return { ok: false, code: "SANDBOX_FAILED", message: `The sandbox failed: ${(error as Error).message}` };
    }
  }

  /** Runs a request; `refill` false leaves the pool alone (the diagnostic probe). */
  private async execute(request: SandboxRequest, refill: boolean): Promise<SandboxResult> {
    const startedAt = this.now();
    const failure = (code: ErrorCode, message: string, limit?: SandboxLimitName): SandboxResult => ({
      exitCode: null,
      stdout: "",
      stderr: "",
      stdoutTruncated: false,
      stderrTruncated: false,
      timedOut: false,
      durationMs: Math.round((this.now() - startedAt) * 100) / 100,
      warm: false,
      ...(limit ? { limit } : {}),
      error: { code, message },
    });
    try {
      if (this.closed) return failure("SANDBOX_UNAVAILABLE", "The sandbox executor has been closed.");
      const validation = validateRequest(request, this.bounds);
      if (!validation.ok) return failure(validation.code, validation.message);
      if (request.signal?.aborted) return failure("CANCELLED", cancelledBeforeStart);
      const valid = validation.request;
      const slot = await this.slots.acquire(request.signal);
      if (!slot.ok) {
        if (slot.reason === "cancelled") return failure("CANCELLED", cancelledBeforeStart);
        return failure("SANDBOX_BUSY", `${this.slots.maxConcurrent} programs are running and ${this.slots.maxQueued} are waiting (sandbox.max_concurrent, sandbox.max_queued): try again shortly.`);
      }
      try {
        return await this.executeInSlot(valid, request.signal, refill, failure);
      } finally {
        slot.release();
      }
    } catch (error) {
      return failure("SANDBOX_FAILED", `The sandbox failed: ${(error as Error).message}`);
    }
  }

  private async executeInSlot(valid: ValidRequest, signal: AbortSignal | undefined, refill: boolean, failure: (code: ErrorCode, message: string, limit?: SandboxLimitName) => SandboxResult): Promise<SandboxResult> {
    const { launcher } = await this.selection;
    const entryProblem = valid.program.kind === "entry" ? launcher.entryProblem(valid.language) : undefined;
    if (entryProblem) return failure("SANDBOX_UNAVAILABLE", `This ${valid.language} script file cannot run here: ${entryProblem}.`);
    const writableMounts = valid.mounts.filter((mount) => mount.writable).map((mount) => mount.hostPath);
    // A fresh workspace starts empty: only the writable mounts can be over the quota already.
    const refusal = await this.quota.refusal(valid.freshWorkspace ? writableMounts : [valid.workspaceDir, ...writableMounts]);
    if (refusal) return failure("SANDBOX_LIMIT_EXCEEDED", refusal, "disk");
    const spec = specOf(valid);
    const key = this.keyOf(spec);
    let worker = await this.pool.acquire(key, launcher.identity(spec));
    // Warm: the interpreter was up before the program arrived (not merely started earlier by the pool).
    const warm = worker?.isReady ?? false;
    if (!worker) {
      const started = await this.startWorker(launcher, spec);
      if (!started.ok) return failure(started.code, started.message, started.limit);
      worker = started.worker;
    }
    if (this.closed || signal?.aborted) {
      worker.kill();
      return this.closed ? failure("SANDBOX_UNAVAILABLE", "The sandbox executor has been closed.") : failure("CANCELLED", cancelledBeforeStart);
    }
    this.running.add(worker);
    const fresh = this.freshWorkspaces.get(worker);
    const quotaFolders = [fresh ?? valid.workspaceDir, ...writableMounts];
    const env: Record<string, string> = { ...worker.baseEnv, ...valid.env };
    if (valid.bridgeSocket) env.THINKTANK_BRIDGE_SOCKET = worker.bridgePathFor(valid.bridgeSocket);
    if (valid.bridgeToken !== undefined) env.THINKTANK_BRIDGE_TOKEN = valid.bridgeToken;
    const egress = this.egress.open(valid.network, valid.networkLabel, launcher.backend, worker);
    if (egress) Object.assign(env, egress.env);
    const running = worker;
    let diskProblem: string | undefined;
    const watch = this.quota.watch(quotaFolders, (message) => {
      diskProblem = message;
      running.kill();
    });
    const outcome = await worker
      .run({
        payload: encodeJob(valid.language, jobProgram(valid, worker.entryPaths), env, worker.envCommand),
        stdin: valid.stdin,
        timeoutMs: valid.timeoutMs,
        maxStdoutBytes: valid.limits.maxStdoutBytes,
        maxStderrBytes: valid.limits.maxStderrBytes,
        killAfterOutputBytes: valid.limits.killAfterOutputBytes,
        bridgeSocket: valid.bridgeSocket,
        bridgeConnection: valid.bridgeConnection,
        signal,
        egress: egress?.accept,
      })
      .finally(() => {
        watch.stop();
        this.running.delete(running);
      });
    const network = egress?.end();
    const classified = classifyOutcome(outcome, { backend: launcher.backend, limits: valid.limits, timeoutMs: valid.timeoutMs, warm });
    const limited: SandboxResult = diskProblem && !outcome.timedOut && !outcome.cancelled ? { ...classified, exitCode: null, limit: "disk", error: { code: "SANDBOX_LIMIT_EXCEEDED", message: diskProblem } } : classified;
    const result: SandboxResult = network ? { ...limited, network, ...(egress && egress.omitted > 0 ? { networkOmitted: egress.omitted } : {}) } : limited;
    // Measure the workspace again in the background, started now so the next run's check waits for it
    // (a run begun right after this one resolves is refused after a burst). Refill after the result is
    // handed back: starting a worker costs a few ms of synchronous spawn work the caller should not wait for.
    // (A fresh workspace is gone by now: removed when its worker ended.)
    void this.quota.measure(fresh ? writableMounts : quotaFolders);
    setImmediate(() => {
      if (refill && result.error?.code !== "SANDBOX_UNAVAILABLE") this.pool.refill(key, () => this.startPooled(launcher, spec));
    });
    return result;
  }

  async prewarm(request: SandboxWarmRequest): Promise<void> {
    const validation = validateRequest({ ...request, source: "" }, this.bounds);
    if (!validation.ok || this.closed) return;
    const { launcher } = await this.selection;
    const spec = specOf(validation.request);
    const key = this.keyOf(spec);
    this.pool.refill(key, () => this.startPooled(launcher, spec));
    await this.pool.settled(key);
  }

  async check(): Promise<SandboxCheck> {
    const { launcher } = await this.selection;
    const info = await this.describeBackend();
    return checkExecutor({
      backend: info.backend,
      info,
      launcher,
      runtimeDir: this.runtimeDir,
      probe: (request) => this.execute(request, false),
      details: { hostUid: this.hostUid, sandboxUid: this.hostUid === 0 ? this.sandboxIds.uid : this.hostUid },
    });
  }

  workspaceFor(threadId: string): string {
    return createThreadWorkspace(this.options.config.sandbox.workspaces_dir, threadId, this.sandboxOwner);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const running = [...this.running];
    for (const worker of running) worker.kill();
    // A probe under way (auto) ends by itself within its own timeout.
    await Promise.all([this.pool.close(), this.selection, ...running.map((worker) => worker.whenClosed())]);
    this.egress.close();
    const memory = await this.memory;
    if (memory.cgroups) releaseParent(memory.cgroups);
    if (this.ownsRuntimeDir) fs.rmSync(this.runtimeDir, { recursive: true, force: true });
  }

  /** Everything that fixes a worker at start-up; the warm pool groups workers by it. */
  private keyOf(spec: WorkerSpec): string {
    const { limits } = spec;
    return JSON.stringify([spec.language, spec.workspaceDir, spec.freshWorkspace === true, spec.mounts, limits.memoryMb, limits.maxProcesses, limits.cpuSeconds, limits.maxFileMb, limits.tmpMb, spec.network === true]);
  }

  private async startWorker(launcher: Launcher, spec: WorkerSpec): Promise<{ ok: true; worker: SandboxWorker } | Extract<PlanResult, { ok: false }>> {
    const workerId = `${process.pid}-${++this.nextWorker}`;
    const identity = launcher.identity(spec);
    // A fresh workspace is the worker's own: made now (off the warm path), removed once the worker has ended.
    const fresh = spec.freshWorkspace ? createFreshWorkspace(spec.workspaceDir, this.sandboxOwner) : undefined;
    const concrete: WorkerSpec = fresh ? { ...spec, workspaceDir: fresh, freshWorkspace: false } : spec;
    const removeFresh = (): void => {
      if (fresh) removeFreshWorkspace(fresh);
    };
    try {
      const planned = await launcher.plan(concrete, workerId);
      if (!planned.ok) {
        removeFresh();
        return planned;
      }
      const plan = launcher.executionCgroup ? this.inExecutionCgroup(planned.plan, concrete, await this.memory) : planned.plan;
      const cleanup = async (): Promise<void> => {
        try {
          await plan.cleanup();
        } finally {
          removeFresh();
        }
      };
      const worker = await SandboxWorker.start(fresh ? { ...plan, cleanup } : plan, identity, this.now);
      if (fresh) this.freshWorkspaces.set(worker, fresh);
      return { ok: true, worker };
    } catch (error) {
      removeFresh();
      throw error;
    }
  }

  /**
   * Where a cgroup is writable, the worker's processes all start in a new cgroup of their own that
   * bounds their memory together; it is made when the worker starts (off the warm path) and removed
   * when the worker has ended. The rlimits stay inside as the per-process bound.
   */
  private inExecutionCgroup(plan: LaunchPlan, spec: WorkerSpec, memory: MemoryScope): LaunchPlan {
    if (!memory.cgroups) return plan;
    try {
      return joinCgroup(plan, ExecutionCgroup.create(memory.cgroups, spec.limits.memoryMb), memory.setpriv);
    } catch (error) {
      void Promise.resolve()
        .then(() => plan.cleanup())
        .catch(() => undefined);
      throw new Error(`the execution's memory cgroup could not be made under ${memory.cgroups.parentDir}: ${(error as Error).message}`);
    }
  }

  private async startPooled(launcher: Launcher, spec: WorkerSpec): Promise<SandboxWorker | undefined> {
    const started = await this.startWorker(launcher, spec);
    return started.ok ? started.worker : undefined;
  }
}

const cancelledBeforeStart = "The run was cancelled before the program started.";

function specOf(request: ValidRequest): WorkerSpec {
  return { language: request.language, workspaceDir: request.workspaceDir, freshWorkspace: request.freshWorkspace, mounts: request.mounts, limits: request.limits, network: request.network.length > 0 };
}

/** The job's program: its text, or the script file at the path the worker's program opens. */
function jobProgram(request: ValidRequest, entryPaths: "sandbox" | "host"): JobProgram {
  const { program } = request;
  if (program.kind === "source") return { source: program.source };
  return { entry: entryPaths === "host" ? program.hostPath : program.sandboxPath };
}

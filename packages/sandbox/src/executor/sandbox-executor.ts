import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ErrorCode, SandboxBackend } from "@thinktank/core";
import { BubblewrapLauncher } from "../launch/bubblewrap-launcher.js";
import type { Launcher, WorkerSpec } from "../launch/launch-plan.js";
import { LocalLauncher } from "../launch/local-launcher.js";
import { defaultSearchPath } from "../host/find-executable.js";
import { defaultLimits } from "../request/resolve-limits.js";
import { validateRequest } from "../request/validate-request.js";
import type { RequestBounds, ValidRequest } from "../request/validate-request.js";
import { classifyOutcome } from "../result/classify-outcome.js";
import type { SandboxCheck, SandboxExecutor, SandboxRequest, SandboxResult, SandboxWarmRequest } from "../sandbox-types.js";
import { encodeJob } from "../worker/bootstraps.js";
import { SandboxWorker } from "../worker/sandbox-worker.js";
import { WarmPool } from "../worker/warm-pool.js";
import { createThreadWorkspace } from "../workspaces/thread-workspace.js";
import { checkExecutor } from "./check-executor.js";
import type { SandboxExecutorOptions } from "./sandbox-executor-options.js";

/**
 * Creates the executor config.sandbox.backend names: `bubblewrap` (the default) or `local` (no
 * isolation, only when config.yaml says so). The backend is never switched silently: when
 * bubblewrap cannot run, runs fail with SANDBOX_UNAVAILABLE and the fix.
 */
export function createSandboxExecutor(options: SandboxExecutorOptions): SandboxExecutor {
  return new PooledSandboxExecutor(options);
}

class PooledSandboxExecutor implements SandboxExecutor {
  readonly backend: SandboxBackend;
  private readonly launcher: Launcher;
  private readonly pool: WarmPool;
  private readonly bounds: RequestBounds;
  private readonly runtimeDir: string;
  private readonly ownsRuntimeDir: boolean;
  private readonly running = new Set<SandboxWorker>();
  private readonly now: () => number;
  private readonly sandboxIds: { uid: number; gid: number };
  private readonly hostUid: number;
  private nextWorker = 0;
  private closed = false;

  constructor(private readonly options: SandboxExecutorOptions) {
    const { config } = options;
    this.backend = config.sandbox.backend;
    this.now = options.now ?? (() => performance.now());
    this.hostUid = options.hostUid ?? process.getuid?.() ?? 0;
    this.sandboxIds = { uid: 65534, gid: 65534, ...options.sandboxIds };
    this.ownsRuntimeDir = options.runtimeDir === undefined;
    this.runtimeDir = options.runtimeDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "thinktank-sandbox-"));
    fs.mkdirSync(this.runtimeDir, { recursive: true });
    // The sandbox user must reach the synthetic /etc and the workers' folders inside.
    fs.chmodSync(this.runtimeDir, 0o755);
    const common = {
      runtimeDir: this.runtimeDir,
      searchPath: options.searchPath ?? defaultSearchPath,
      nodePath: options.nodePath ?? process.execPath,
      pythonCommand: options.pythonCommand ?? "python3",
    };
    this.launcher =
      this.backend === "local"
        ? new LocalLauncher(common)
        : new BubblewrapLauncher({ ...common, bwrapCommand: options.bwrapCommand ?? "bwrap", hostUid: this.hostUid, sandboxIds: this.sandboxIds });
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
  }

  run(request: SandboxRequest): Promise<SandboxResult> {
    return this.execute(request, true);
  }

  /** Runs a request; `refill` false leaves the pool alone (the diagnostic probe). */
  private async execute(request: SandboxRequest, refill: boolean): Promise<SandboxResult> {
    const startedAt = this.now();
    const failure = (code: ErrorCode, message: string): SandboxResult => ({
      exitCode: null,
      stdout: "",
      stderr: "",
      stdoutTruncated: false,
      stderrTruncated: false,
      timedOut: false,
      durationMs: Math.round((this.now() - startedAt) * 100) / 100,
      warm: false,
      error: { code, message },
    });
    try {
      if (this.closed) return failure("SANDBOX_UNAVAILABLE", "The sandbox executor has been closed.");
      const validation = validateRequest(request, this.bounds);
      if (!validation.ok) return failure(validation.code, validation.message);
      if (request.signal?.aborted) return failure("CANCELLED", cancelledBeforeStart);
      const valid = validation.request;
      const spec = specOf(valid);
      const key = this.keyOf(spec);
      let worker = await this.pool.acquire(key, this.launcher.identity(spec));
      // Warm: the interpreter was up before the program arrived (not merely started earlier by the pool).
      const warm = worker?.isReady ?? false;
      if (!worker) {
        const started = await this.startWorker(spec);
        if (!started.ok) return failure(started.code, started.message);
        worker = started.worker;
      }
      if (this.closed || request.signal?.aborted) {
        worker.kill();
        return this.closed ? failure("SANDBOX_UNAVAILABLE", "The sandbox executor has been closed.") : failure("CANCELLED", cancelledBeforeStart);
      }
      this.running.add(worker);
      const env: Record<string, string> = { ...worker.baseEnv, ...valid.env };
      if (valid.bridgeSocket) env.THINKTANK_BRIDGE_SOCKET = worker.bridgePathFor(valid.bridgeSocket);
      if (valid.bridgeToken !== undefined) env.THINKTANK_BRIDGE_TOKEN = valid.bridgeToken;
      const outcome = await worker
        .run({
          payload: encodeJob(valid.language, valid.source, env, worker.envCommand),
          stdin: valid.stdin,
          timeoutMs: valid.timeoutMs,
          maxStdoutBytes: valid.limits.maxStdoutBytes,
          maxStderrBytes: valid.limits.maxStderrBytes,
          killAfterOutputBytes: valid.limits.killAfterOutputBytes,
          bridgeSocket: valid.bridgeSocket,
          bridgeConnection: valid.bridgeConnection,
          signal: request.signal,
        })
        .finally(() => this.running.delete(worker));
      const result = classifyOutcome(outcome, { backend: this.backend, limits: valid.limits, timeoutMs: valid.timeoutMs, warm });
      // Refill after the result is handed back: starting a worker costs a few ms of synchronous
      // spawn work that the caller should not wait for.
      if (refill && result.error?.code !== "SANDBOX_UNAVAILABLE") setImmediate(() => this.pool.refill(key, () => this.startPooled(spec)));
      return result;
    } catch (error) {
      return failure("SANDBOX_FAILED", `The sandbox failed: ${(error as Error).message}`);
    }
  }

  async prewarm(request: SandboxWarmRequest): Promise<void> {
    const validation = validateRequest({ ...request, source: "" }, this.bounds);
    if (!validation.ok || this.closed) return;
    const spec = specOf(validation.request);
    const key = this.keyOf(spec);
    this.pool.refill(key, () => this.startPooled(spec));
    await this.pool.settled(key);
  }

  check(): Promise<SandboxCheck> {
    return checkExecutor({
      backend: this.backend,
      launcher: this.launcher,
      runtimeDir: this.runtimeDir,
      probe: (request) => this.execute(request, false),
      details: { hostUid: this.hostUid, sandboxUid: this.hostUid === 0 ? this.sandboxIds.uid : this.hostUid },
    });
  }

  workspaceFor(threadId: string): string {
    const owner = this.backend === "bubblewrap" && this.hostUid === 0 ? this.sandboxIds : undefined;
    return createThreadWorkspace(this.options.config.sandbox.workspaces_dir, threadId, owner);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const running = [...this.running];
    for (const worker of running) worker.kill();
    await Promise.all([this.pool.close(), ...running.map((worker) => worker.whenClosed())]);
    if (this.ownsRuntimeDir) fs.rmSync(this.runtimeDir, { recursive: true, force: true });
  }

  /** Everything that fixes a worker at start-up; the warm pool groups workers by it. */
  private keyOf(spec: WorkerSpec): string {
    const { limits } = spec;
    return JSON.stringify([spec.language, spec.workspaceDir, spec.mounts, limits.memoryMb, limits.maxProcesses, limits.cpuSeconds, limits.maxFileMb, limits.tmpMb]);
  }

  private async startWorker(spec: WorkerSpec): Promise<{ ok: true; worker: SandboxWorker } | { ok: false; code: ErrorCode; message: string }> {
    const workerId = `${process.pid}-${++this.nextWorker}`;
    const identity = this.launcher.identity(spec);
    const planned = await this.launcher.plan(spec, workerId);
    if (!planned.ok) return planned;
    return { ok: true, worker: await SandboxWorker.start(planned.plan, identity, this.now) };
  }

  private async startPooled(spec: WorkerSpec): Promise<SandboxWorker | undefined> {
    const started = await this.startWorker(spec);
    return started.ok ? started.worker : undefined;
  }
}

const cancelledBeforeStart = "The run was cancelled before the program started.";

function specOf(request: ValidRequest): WorkerSpec {
  return { language: request.language, workspaceDir: request.workspaceDir, mounts: request.mounts, limits: request.limits };
}

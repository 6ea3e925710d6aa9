import { spawn } from "node:child_process";
import fs from "node:fs";
import type { ChildProcess } from "node:child_process";
import type { Duplex, Writable } from "node:stream";
import type { Socket } from "node:net";
import { CappedOutput } from "../output/capped-output.js";
import type { LaunchPlan } from "../launch/launch-plan.js";
import { BridgeProxy } from "./bridge-proxy.js";

export interface WorkerJob {
  /** What goes to the bootstrap on fd 3 (see `encodeJob`). */
  readonly payload: string;
  readonly stdin: Buffer;
  readonly timeoutMs: number;
  readonly maxStdoutBytes: number;
  readonly maxStderrBytes: number;
  readonly killAfterOutputBytes: number;
  /** The host bridge socket the worker's proxy forwards to. */
  readonly bridgeSocket: string | undefined;
  /** Takes the program's bridge connections in-process instead (see SandboxRequest.bridgeConnection). */
  readonly bridgeConnection?: ((socket: Socket) => void) | undefined;
  /** Aborting it stops the program with every process it started, as the timeout does. */
  readonly signal?: AbortSignal | undefined;
  /** Takes the program's connections to the egress proxy (the run's proxy session); without it they are dropped. */
  readonly egress?: ((socket: Socket) => void) | undefined;
}

export interface WorkerOutcome {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The bootstrap reported ready: the sandbox and the interpreter came up. */
  readonly started: boolean;
  readonly timedOut: boolean;
  /** The job's signal stopped the program. */
  readonly cancelled: boolean;
  readonly outputLimitHit: boolean;
  readonly stdout: CappedOutput;
  readonly stderr: CappedOutput;
  readonly durationMs: number;
  /** The process could not be spawned at all (e.g. ENOENT). */
  readonly spawnError?: string;
  /** Processes of the execution the kernel killed because its cgroup ran out of memory (memory per execution); 0 without a cgroup. */
  readonly oomKills: number;
}

/** @default 2,000 ms to wait for pipes to close after the process exited */
const closeGraceMs = 2_000;
/** @default 1,000 ms for the launched process to exit on its own once its program was killed */
const killGraceMs = 1_000;

/**
 * One sandboxed interpreter, started ahead of its job and used once. Output that arrives before the
 * job (a start-up error) is kept and reported with the job's output.
 */
export class SandboxWorker {
  private readonly child: ChildProcess;
  private readonly early = { stdout: new CappedOutput(8192), stderr: new CappedOutput(8192) };
  private collectors: { stdout: CappedOutput; stderr: CappedOutput } | undefined;
  private exited = false;
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private spawnError: string | undefined;
  private oomKills = 0;
  private started = false;
  private claimed = false;
  private markStarted: () => void = () => undefined;
  private readonly exitListeners: Array<() => void> = [];
  /** Stops the program when its output passes the hard cap (set by `run`). */
  private outputCheck: () => void = () => undefined;
  /** Resolves true when the bootstrap is ready for a job, false if the worker ended first. */
  readonly ready: Promise<boolean>;
  private readonly closed: Promise<void>;

  private constructor(
    private readonly plan: LaunchPlan,
    private readonly proxy: BridgeProxy | undefined,
    /** Identity of the host folders bound at start (see `Launcher.identity`). */
    readonly identity: string,
    private readonly now: () => number,
  ) {
    const passed = (plan.passFiles ?? []).map((file) => fs.openSync(file, "r"));
    try {
      this.child = spawn(plan.command, [...plan.args], {
        cwd: plan.cwd,
        env: { ...plan.env },
        stdio: plan.channel === "stdin" ? ["pipe", "pipe", "pipe"] : ["pipe", "pipe", "pipe", "pipe", ...passed],
        detached: plan.detached,
        ...(plan.uid !== undefined ? { uid: plan.uid, gid: plan.gid } : {}),
      });
    } finally {
      for (const fd of passed) fs.closeSync(fd);
    }
    this.ready = new Promise((resolve) => {
      this.markStarted = () => {
        this.started = true;
        resolve(true);
      };
      this.onExit(() => resolve(this.started));
    });
    if (plan.channel !== "stdin") {
      const channel = this.child.stdio[3] as Duplex;
      channel.once("data", () => this.markStarted());
      channel.on("error", () => undefined);
    }
    this.child.stdin?.on("error", () => undefined);
    this.child.stdout?.on("data", (chunk: Buffer) => this.output("stdout", chunk));
    this.child.stderr?.on("data", (chunk: Buffer) => this.output("stderr", chunk));
    this.closed = new Promise((resolve) => {
      let settled = false;
      const settle = (): void => {
        if (settled) return;
        settled = true;
        this.proxy?.close();
        plan.egress?.close();
        this.oomKills = plan.oomKills?.() ?? 0;
        // Best effort: the runtime folder is removed on close anyway, and a stale cgroup at the next start.
        void Promise.resolve()
          .then(() => plan.cleanup())
          .catch(() => undefined)
          .then(() => resolve());
      };
      this.child.once("error", (error) => {
        this.spawnError = error.message;
        this.markExited(null, null);
        settle();
      });
      this.child.once("exit", (code, signal) => {
        this.markExited(code, signal);
        if (this.child.pid !== undefined) plan.afterExit(this.child.pid);
        // A straggler holding the pipes open must not hold the result back.
        setTimeout(() => {
          this.child.stdout?.destroy();
          this.child.stderr?.destroy();
          settle();
        }, closeGraceMs).unref();
      });
      this.child.once("close", settle);
    });
  }

  static async start(plan: LaunchPlan, identity: string, now: () => number): Promise<SandboxWorker> {
    const proxy = plan.bridge.kind === "proxy" ? await BridgeProxy.listen(plan.bridge.listenPath, plan.bridge.owner) : undefined;
    try {
      return new SandboxWorker(plan, proxy, identity, now);
    } catch (error) {
      proxy?.close();
      plan.egress?.close();
      await Promise.resolve()
        .then(() => plan.cleanup())
        .catch(() => undefined);
      throw error;
    }
  }

  get alive(): boolean {
    return !this.exited;
  }

  get isReady(): boolean {
    return this.started;
  }

  /** Where the program finds the bridge socket. */
  bridgePathFor(hostSocket: string): string {
    return this.plan.bridge.kind === "proxy" ? this.plan.bridge.sandboxPath : hostSocket;
  }

  get baseEnv(): Readonly<Record<string, string>> {
    return this.plan.baseEnv;
  }

  get envCommand(): string | undefined {
    return this.plan.envCommand;
  }

  /** Which path of a script file the worker's program opens (see `LaunchPlan.entryPaths`). */
  get entryPaths(): "sandbox" | "host" {
    return this.plan.entryPaths ?? "sandbox";
  }

  /** The proxy variables a run that may use the network gets (empty for a worker without egress). */
  get egressEnv(): Readonly<Record<string, string>> {
    return this.plan.egress?.env ?? {};
  }

  /** The Proxy-Authorization the worker's entrance requires (Deno's loopback listener), if any. */
  get egressAuthorization(): string | undefined {
    return this.plan.egress?.proxyAuthorization;
  }

  onExit(listener: () => void): void {
    if (this.exited) listener();
    else this.exitListeners.push(listener);
  }

  /** Runs the job; resolves once every process of the worker is gone. Never rejects. */
  async run(job: WorkerJob): Promise<WorkerOutcome> {
    if (this.claimed) throw new Error("a sandbox worker runs one job only");
    this.claimed = true;
    const startedAt = this.now();
    const stdout = new CappedOutput(job.maxStdoutBytes);
    const stderr = new CappedOutput(job.maxStderrBytes);
    this.collectors = { stdout, stderr };
    let timedOut = false;
    let outputLimitHit = false;
    const kill = (): void => this.kill();
    const checkOutput = (): void => {
      if (!outputLimitHit && stdout.totalBytes + stderr.totalBytes > job.killAfterOutputBytes) {
        outputLimitHit = true;
        kill();
      }
    };
    this.outputCheck = checkOutput;
    stdout.push(this.early.stdout.bytes());
    stderr.push(this.early.stderr.bytes());
    this.proxy?.attach(job.bridgeSocket, job.bridgeConnection);
    if (job.egress) this.plan.egress?.attach(job.egress);

    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, job.timeoutMs);
    let cancelled = false;
    const cancel = (): void => {
      if (this.exited || timedOut || outputLimitHit) return;
      cancelled = true;
      kill();
    };
    if (job.signal?.aborted) cancel();
    job.signal?.addEventListener("abort", cancel, { once: true });
    if (!this.exited && !cancelled) {
      if (this.plan.channel === "stdin") {
        // One stream: the job's length in bytes on a line, the job, then the program's standard input.
        this.child.stdin?.write(`${Buffer.byteLength(job.payload)}\n${job.payload}`);
      } else {
        (this.child.stdio[3] as Writable).end(job.payload);
      }
      this.child.stdin?.end(job.stdin);
    }
    await this.closed;
    clearTimeout(timer);
    job.signal?.removeEventListener("abort", cancel);
    return {
      exitCode: this.exitInfo?.code ?? null,
      signal: this.exitInfo?.signal ?? null,
      started: this.started,
      timedOut,
      cancelled,
      outputLimitHit,
      stdout,
      stderr,
      durationMs: this.now() - startedAt,
      ...(this.spawnError ? { spawnError: this.spawnError } : {}),
      oomKills: this.oomKills,
    };
  }

  /** Stops an idle (or running) worker and everything it started. */
  kill(): void {
    if (this.exited || this.child.pid === undefined) return;
    this.plan.killTree(this.child.pid);
    // ChildProcess.kill does nothing once the process has exited, so a recycled pid is never hit.
    setTimeout(() => this.child.kill("SIGKILL"), killGraceMs).unref();
  }

  /** Resolves when the worker has ended and its files (and cgroup) are removed. */
  whenClosed(): Promise<void> {
    return this.closed;
  }

  private output(stream: "stdout" | "stderr", chunk: Buffer): void {
    if (stream === "stdout" && this.plan.channel === "stdin" && !this.started) {
      // The first byte on stdout is the bootstrap's ready mark, not output.
      this.markStarted();
      chunk = chunk.subarray(1);
      if (chunk.length === 0) return;
    }
    if (!this.collectors) {
      this.early[stream].push(chunk);
      return;
    }
    this.collectors[stream].push(chunk);
    this.outputCheck();
  }

  private markExited(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exited) return;
    this.exited = true;
    this.exitInfo = { code, signal };
    for (const listener of this.exitListeners.splice(0)) listener();
  }
}

import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { confineHostProgram, type ConfinementPlan, type HostMechanism, type HostProgram, type SpawnLine } from "./confine-host-program.js";
import { defaultSearchPath, findExecutable } from "./find-executable.js";
import { unprivilegedIds } from "./unprivileged-ids.js";

/** What /healthz and the start-up log say about programs the service starts on the host. */
export type HostIsolation = "pid-namespace" | "dedicated-user" | "none";

export interface HostIsolationInfo {
  readonly isolation: HostIsolation;
  /** Which mechanism gives it; undefined for `none`. */
  readonly mechanism?: HostMechanism;
  /** One or two sentences fit for an answer that needs no key: no host paths, no PATH. */
  readonly reason: string;
  /** What the probes met (their messages may name host paths): for the start-up log only. */
  readonly detail?: string;
}

export interface HostConfinementOptions {
  /** Paths no host program may see: a folder is covered by an empty tmpfs, a file by /dev/null (only those that exist when a program starts). @default [] */
  readonly hide?: readonly string[];
  /** Where bwrap, unshare, setpriv and sh are looked up. @default defaultSearchPath */
  readonly searchPath?: string;
  /** The mechanisms tried, in this order; `[]` forces `none` (to see its start-up message). @default ["bubblewrap", "unshare", "dedicated-user"] */
  readonly mechanisms?: readonly HostMechanism[];
  /** @default process.getuid() */
  readonly hostUid?: number;
  /** The user `dedicated-user` runs programs as. @default unprivilegedIds (65534) */
  readonly dedicatedUser?: { readonly uid: number; readonly gid: number };
  /** @default process.platform */
  readonly platform?: NodeJS.Platform;
  /** The working folder of programs that name none. @default process.cwd() */
  readonly defaultCwd?: string;
}

/** A program ready to spawn, or why it cannot start (a command not found, as spawn would say it). */
export type ConfineResult =
  | ({ readonly ok: true; readonly isolation: HostIsolationInfo; readonly runsAs?: { readonly uid: number; readonly gid: number } } & SpawnLine)
  | { readonly ok: false; readonly error: NodeJS.ErrnoException };

const allMechanisms: readonly HostMechanism[] = ["bubblewrap", "unshare", "dedicated-user"];
const probeTimeoutMs = 10_000;

type Found = { readonly plan: Omit<ConfinementPlan, "hiddenFolders" | "hiddenFiles">; readonly info: HostIsolationInfo };
/** How a probe (`true` under a mechanism) ended: its first line of stderr when it failed. */
type ProbeOutcome = { readonly ok: boolean; readonly said: string };

function driveSync(search: Generator<SpawnLine, Found, ProbeOutcome>, probe: (line: SpawnLine) => ProbeOutcome): Found {
  let step = search.next();
  while (!step.done) step = search.next(probe(step.value));
  return step.value;
}

async function drive(search: Generator<SpawnLine, Found, ProbeOutcome>, probe: (line: SpawnLine) => Promise<ProbeOutcome>): Promise<Found> {
  let step = search.next();
  while (!step.done) step = search.next(await probe(step.value));
  return step.value;
}

function probeSync(line: SpawnLine): ProbeOutcome {
  const run = spawnSync(line.command, [...line.args], { env: line.env, cwd: line.cwd, timeout: probeTimeoutMs, stdio: ["ignore", "ignore", "pipe"] });
  return { ok: run.status === 0, said: run.error?.message ?? (run.stderr?.toString().trim().split("\n")[0] || `exited with ${run.status ?? run.signal}`) };
}

function probeAsync(line: SpawnLine): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    const child = spawn(line.command, [...line.args], { env: line.env, cwd: line.cwd, timeout: probeTimeoutMs, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", (error) => resolve({ ok: false, said: error.message }));
    child.on("close", (code, signal) => resolve({ ok: code === 0, said: stderr.trim().split("\n")[0] || `exited with ${code ?? signal}` }));
  });
}

/**
 * How this process confines the programs it starts on the host (trusted script tools, stdio MCP
 * servers, git): the mechanism is found once, on first use, by really starting `true` with it
 * (bubblewrap, else as root unshare, else as root a dedicated user, else none), and cached. One
 * instance per service, made at start-up and passed to every library that starts programs
 * (docs/architecture.md, "Confined on the host").
 */
export class HostConfinement {
  #found: Found | undefined;
  #detecting: Promise<Found> | undefined;
  readonly #hide: Set<string>;

  constructor(private readonly options: HostConfinementOptions = {}) {
    this.#hide = new Set((options.hide ?? []).map((entry) => path.resolve(entry)));
  }

  /**
   * Hides more paths from every program started after this call: what the service makes once it
   * runs (the sandbox's runtime folder, with the workers' bridge and egress sockets).
   */
  hide(...paths: readonly string[]): void {
    for (const entry of paths) this.#hide.add(path.resolve(entry));
  }

  /** The isolation in force (found on first use, which blocks while the probe runs: call detect() first where that matters). */
  get info(): HostIsolationInfo {
    return this.#detect().info;
  }

  /** Finds the mechanism without blocking the event loop; confine() and info then use what it found. */
  async detect(): Promise<HostIsolationInfo> {
    if (!this.#found) {
      this.#detecting ??= drive(this.#search(), probeAsync);
      const found = await this.#detecting;
      this.#found ??= found;
    }
    return this.#found.info;
  }

  /**
   * The command line to spawn instead of `program`. The command is first looked up the way spawn
   * would (on the program's PATH, relative to its cwd), so a missing one fails as spawn fails
   * (ENOENT) without starting anything.
   */
  confine(program: HostProgram): ConfineResult {
    const { plan, info } = this.#detect();
    const cwd = program.cwd ?? plan.defaultCwd;
    const command = findExecutable(program.command, program.env.PATH ?? defaultSearchPath, { cwd, realPath: false });
    if (!command) return { ok: false, error: spawnError(program.command, fs.existsSync(path.resolve(cwd, program.command)) ? "EACCES" : "ENOENT") };
    const line = confineHostProgram({ ...program, command, cwd }, { ...plan, ...this.#hidden() });
    return { ok: true, ...line, isolation: info, ...(plan.mechanism === "dedicated-user" ? { runsAs: plan.dedicatedUser } : {}) };
  }

  /**
   * Gives a folder the service made for one program (its working folder, a clone's target) to the
   * user the program runs as, when that is not the service's (`dedicated-user`); otherwise nothing.
   */
  handOver(folder: string): void {
    const { plan } = this.#detect();
    if (plan.mechanism !== "dedicated-user") return;
    const { uid, gid } = plan.dedicatedUser;
    fs.chownSync(folder, uid, gid);
  }

  /** The hidden paths that exist now, real paths, without one inside a hidden folder. */
  #hidden(): Pick<ConfinementPlan, "hiddenFolders" | "hiddenFiles"> {
    const folders: string[] = [];
    const files: string[] = [];
    for (const entry of this.#hide) {
      let real: string;
      let stats: fs.Stats;
      try {
        real = fs.realpathSync(entry);
        stats = fs.statSync(real);
      } catch {
        continue; // not there: nothing to hide
      }
      (stats.isDirectory() ? folders : files).push(real);
    }
    const sorted = [...new Set(folders)].sort((a, b) => a.length - b.length);
    const covered = (candidate: string, roots: readonly string[]): boolean => roots.some((root) => candidate !== root && (candidate.startsWith(`${root}/`) || root === "/"));
    const hiddenFolders = sorted.filter((folder, index) => !covered(folder, sorted.slice(0, index)));
    const hiddenFiles = [...new Set(files)].filter((file) => !covered(file, hiddenFolders));
    return { hiddenFolders, hiddenFiles };
  }

  #detect(): Found {
    this.#found ??= driveSync(this.#search(), probeSync);
    return this.#found;
  }

  /** Tries each mechanism in turn by starting `true` with it (each line yielded is run by the caller, sync or not). */
  *#search(): Generator<SpawnLine, Found, ProbeOutcome> {
    const options = this.options;
    const searchPath = options.searchPath ?? defaultSearchPath;
    const hostUid = options.hostUid ?? process.getuid?.() ?? -1;
    const asRoot = hostUid === 0;
    const base = { asRoot, dedicatedUser: options.dedicatedUser ?? unprivilegedIds, defaultCwd: options.defaultCwd ?? process.cwd() };
    const none = (reason: string, detail?: string) => ({ plan: { ...base, mechanism: "none" as const, tools: {} }, info: { isolation: "none" as const, reason, ...(detail ? { detail } : {}) } });
    const platform = options.platform ?? process.platform;
    if (platform !== "linux") return none(`host programs run unconfined: ${platform} has no pid namespaces or /proc to confine them with`);
    const mechanisms = options.mechanisms ?? allMechanisms;
    if (mechanisms.length === 0) return none("host program confinement is turned off for this process: host programs run as the service's user and could read its environment");
    const problems: string[] = [];
    const trueCommand = findExecutable("true", searchPath) ?? "/bin/true";
    for (const mechanism of mechanisms) {
      const tools = {
        bwrap: mechanism === "bubblewrap" ? findExecutable("bwrap", searchPath) : undefined,
        unshare: mechanism === "unshare" ? findExecutable("unshare", searchPath) : undefined,
        setpriv: mechanism === "bubblewrap" ? undefined : findExecutable("setpriv", searchPath),
        sh: mechanism === "unshare" ? findExecutable("sh", searchPath) : undefined,
        env: mechanism === "bubblewrap" ? findExecutable("env", searchPath, { realPath: false }) : undefined,
      };
      const missing = requiredTools[mechanism].filter((tool) => !tools[tool]);
      if (mechanism !== "bubblewrap" && !asRoot) {
        problems.push(`${mechanism}: needs root`);
        continue;
      }
      if (missing.length > 0) {
        problems.push(`${mechanism}: ${missing.join(", ")} not found on the search path`);
        continue;
      }
      const plan = { ...base, mechanism, tools: Object.fromEntries(Object.entries(tools).filter(([, value]) => value)) };
      const outcome = yield confineHostProgram({ command: trueCommand, args: [], env: { PATH: searchPath }, cwd: "/" }, { ...plan, ...this.#hidden() });
      if (outcome.ok) return { plan, info: { isolation: mechanism === "dedicated-user" ? "dedicated-user" : "pid-namespace", mechanism, reason: reasons[mechanism](plan.dedicatedUser.uid), ...(problems.length > 0 ? { detail: problems.join("; ") } : {}) } };
      problems.push(`${mechanism}: ${outcome.said}`);
    }
    return none(
      asRoot
        ? "neither bubblewrap, unshare nor setpriv could confine programs here: host programs (script tools, stdio MCP servers, git) run as root and could read the service's environment"
        : "bubblewrap is missing or cannot create namespaces here (unprivileged user namespaces off?), and the service is not root: host programs (script tools, stdio MCP servers, git) run as the service's user and could read its environment",
      problems.join("; "),
    );
  }
}

const requiredTools: Record<HostMechanism, readonly ("bwrap" | "unshare" | "setpriv" | "sh" | "env")[]> = {
  bubblewrap: ["bwrap"],
  unshare: ["unshare", "setpriv", "sh"],
  "dedicated-user": ["setpriv"],
};

const reasons: Record<HostMechanism, (uid: number) => string> = {
  bubblewrap: () => "bubblewrap: each host program runs in a pid namespace of its own with its own /proc (the service's processes are invisible to it), the data folder hidden, and ends whole with its call",
  unshare: () => "unshare (as root): each host program runs in a pid namespace of its own with its own /proc, the data folder hidden, without capabilities, and ends whole with its call",
  "dedicated-user": (uid) =>
    `no pid namespace here: host programs run as uid ${uid}, which cannot read the service's environment, memory or data folder; a program that leaves its process group may outlive its call`,
};

function spawnError(command: string, code: "ENOENT" | "EACCES"): NodeJS.ErrnoException {
  return Object.assign(new Error(`spawn ${command} ${code}`), { code, errno: code === "ENOENT" ? -2 : -13, syscall: `spawn ${command}`, path: command });
}

/** The start-up line of both services about host programs (no paths: the probes' detail goes to the log). */
export function describeHostIsolation(info: HostIsolationInfo): string {
  if (info.isolation === "none") return `host programs are NOT confined: ${info.reason}`;
  return `host programs are confined (${info.isolation}, ${info.mechanism}): ${info.reason}`;
}

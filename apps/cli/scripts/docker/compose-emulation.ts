// An emulation of `docker compose` for a machine whose docker CLI has no compose plugin (docs/docker.md,
// "The run under an engine"). It is NOT Compose: it reads docker-compose.yml (YAML 1.1 anchors and
// merge keys, ${VAR}, ${VAR:-default}, ${VAR:?error} from the given environment), merges override
// files over it (mappings merged key by key, lists and scalars replaced), picks a profile's services
// and their depends_on, and issues the `docker build` / `docker run` each service would get: image,
// command, entrypoint, user, environment, volumes (relative paths from the project folder, named
// volumes as <project>_<name>), security_opt, restart, healthcheck (CMD arrays run through sh -c as
// the one form `docker run --health-cmd` takes), extra_hosts, pull_policy (`--pull`), in depends_on
// order, waiting for service_started, service_healthy and service_completed_successfully as Compose
// does. Networks: only `network_mode: host` is supported (this machine allows no bridge network);
// `ports` are then meaningless and left out, as Compose does with host networking.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { load as parseYaml, YAML11_SCHEMA } from "js-yaml";

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

export interface EmulatedService {
  readonly name: string;
  readonly image?: string;
  readonly build?: string | { context?: string; dockerfile?: string };
  readonly command?: string[] | string;
  readonly entrypoint?: string[] | string;
  readonly user?: string;
  readonly environment?: Record<string, string | number | null> | string[];
  readonly volumes?: string[];
  readonly security_opt?: string[];
  readonly restart?: string;
  readonly profiles?: string[];
  readonly network_mode?: string;
  readonly extra_hosts?: string[];
  readonly pull_policy?: string;
  readonly depends_on?: Record<string, { condition?: string }> | string[];
  readonly healthcheck?: { test?: string[] | string; interval?: string; timeout?: string; start_period?: string; retries?: number; disable?: boolean };
}

export interface ComposeEmulationOptions {
  /** The project folder (relative paths in the file are read from here). */
  readonly projectDir: string;
  /** docker-compose.yml, then the overrides. */
  readonly files: readonly string[];
  /** What ${VAR} reads. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** @default the file's top-level `name` */
  readonly project?: string;
  /** Each docker command, for the record. @default nothing */
  readonly log?: (line: string) => void;
}

export class ComposeEmulation {
  readonly project: string;
  readonly services: Readonly<Record<string, EmulatedService>>;
  readonly volumes: readonly string[];

  constructor(private readonly options: ComposeEmulationOptions) {
    let merged: Record<string, Json> = {};
    for (const file of options.files) merged = mergeDeep(merged, parseYaml(fs.readFileSync(file, "utf8"), { schema: YAML11_SCHEMA }) as Record<string, Json>) as Record<string, Json>;
    const resolved = interpolate(merged, options.env) as Record<string, Json>;
    this.project = options.project ?? String(resolved.name ?? path.basename(options.projectDir));
    const services = (resolved.services ?? {}) as Record<string, Record<string, Json>>;
    this.services = Object.fromEntries(Object.entries(services).map(([name, service]) => [name, { ...(service as object), name } as EmulatedService]));
    this.volumes = Object.keys((resolved.volumes ?? {}) as object);
  }

  /** The services `up` starts: those named (or every service of no profile or an active one) and their depends_on, in start order. */
  selection(options: { profiles?: readonly string[]; services?: readonly string[] } = {}): string[] {
    const active = (name: string): boolean => {
      const profiles = this.services[name]?.profiles;
      return !profiles || profiles.some((profile) => options.profiles?.includes(profile));
    };
    const roots = options.services && options.services.length > 0 ? [...options.services] : Object.keys(this.services).filter(active);
    const order: string[] = [];
    const visit = (name: string, trail: string[]): void => {
      if (order.includes(name)) return;
      if (trail.includes(name)) throw new Error(`depends_on cycle: ${[...trail, name].join(" -> ")}`);
      if (!this.services[name]) throw new Error(`no service '${name}'`);
      for (const dependency of Object.keys(dependsOn(this.services[name] as EmulatedService))) visit(dependency, [...trail, name]);
      order.push(name);
    };
    for (const root of roots) visit(root, []);
    return order;
  }

  containerName(service: string): string {
    return `${this.project}-${service}-1`;
  }

  /**
   * `docker build` of a service with `build:` (host network: the build's npm ci reaches the registry
   * the host reaches). `contextTar`: the context as a tar stream on stdin instead of the folder (the
   * committed tree, `git archive`), with the Dockerfile at its root.
   */
  build(service: string, options: { contextTar?: Buffer } = {}): void {
    const spec = this.services[service] as EmulatedService;
    if (!spec.build || !spec.image) throw new Error(`${service}: nothing to build`);
    const context = path.resolve(this.options.projectDir, typeof spec.build === "string" ? spec.build : (spec.build.context ?? "."));
    const dockerfile = typeof spec.build === "object" && spec.build.dockerfile ? ["-f", options.contextTar ? spec.build.dockerfile : path.resolve(context, spec.build.dockerfile)] : [];
    this.docker(["build", "--network", "host", ...dockerfile, "-t", spec.image, options.contextTar ? "-" : context], { inherit: true, timeoutMs: 3_600_000, ...(options.contextTar ? { input: options.contextTar } : {}) });
  }

  /** The `docker run` arguments Compose's create+start of the service amounts to. */
  runArgs(service: string, overrides: { name?: string; detach?: boolean } = {}): string[] {
    const spec = this.services[service] as EmulatedService;
    if (spec.network_mode !== "host") throw new Error(`${service}: the emulation runs only network_mode: host (this machine allows no bridge network); add it in a test override`);
    if (!spec.image) throw new Error(`${service}: no image`);
    const args = ["run", ...(overrides.detach === false ? [] : ["-d"]), "--name", overrides.name ?? this.containerName(service), "--network", "host"];
    args.push("--label", `com.docker.compose.project=${this.project}`, "--label", `com.docker.compose.service=${service}`);
    args.push("--pull", pullFlag(spec.pull_policy));
    if (spec.restart && overrides.detach !== false) args.push("--restart", spec.restart);
    if (spec.user) args.push("--user", spec.user);
    for (const [key, value] of Object.entries(environmentOf(spec))) args.push("-e", `${key}=${value}`);
    for (const volume of spec.volumes ?? []) args.push("-v", this.volumeArg(volume));
    for (const option of spec.security_opt ?? []) args.push("--security-opt", option.replace(/^(seccomp|apparmor|label|systempaths):/, "$1="));
    for (const host of spec.extra_hosts ?? []) args.push("--add-host", host.replace(/=/, ":"));
    const health = spec.healthcheck;
    if (health && !health.disable && health.test) {
      const test = Array.isArray(health.test) ? health.test : ["CMD-SHELL", health.test];
      if (test[0] === "NONE") args.push("--no-healthcheck");
      else {
        args.push("--health-cmd", test[0] === "CMD" ? test.slice(1).map(shellQuote).join(" ") : test.slice(1).join(" "));
        if (health.interval) args.push("--health-interval", health.interval);
        if (health.timeout) args.push("--health-timeout", health.timeout);
        if (health.start_period) args.push("--health-start-period", health.start_period);
        if (health.retries !== undefined) args.push("--health-retries", String(health.retries));
      }
    }
    const entrypoint = spec.entrypoint === undefined ? undefined : Array.isArray(spec.entrypoint) ? spec.entrypoint : ["/bin/sh", "-c", spec.entrypoint];
    if (entrypoint) args.push("--entrypoint", entrypoint[0] as string);
    args.push(spec.image);
    if (entrypoint) args.push(...entrypoint.slice(1));
    if (spec.command !== undefined) args.push(...(Array.isArray(spec.command) ? spec.command : ["/bin/sh", "-c", spec.command]));
    return args;
  }

  /**
   * `up -d`: each service in depends_on order, after waiting for what it depends on; a service with
   * `build:` is built when its image is missing or `build` is set. Throws naming the service that
   * failed (its last log lines included).
   */
  async up(options: { profiles?: readonly string[]; services?: readonly string[]; build?: boolean; timeoutMs?: number } = {}): Promise<string[]> {
    const order = this.selection(options);
    for (const volume of this.volumes) this.docker(["volume", "create", "--label", `com.docker.compose.project=${this.project}`, `${this.project}_${volume}`]);
    for (const name of order) {
      const spec = this.services[name] as EmulatedService;
      for (const [dependency, condition] of Object.entries(dependsOn(spec))) await this.waitFor(dependency, condition, options.timeoutMs ?? 300_000);
      if (spec.build && (options.build || !this.imageExists(spec.image as string))) this.build(name);
      if (this.containerState(name) === "running") continue;
      this.remove(name);
      this.docker(this.runArgs(name));
    }
    return order;
  }

  /** Waits until the service meets the condition (service_started, service_healthy, service_completed_successfully). */
  async waitFor(service: string, condition: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const state = this.inspect(service);
      if (!state) throw new Error(`${service} was never created`);
      if (condition === "service_completed_successfully" && state.status === "exited") {
        if (state.exitCode === 0) return;
        throw new Error(`${service} exited with ${state.exitCode}:\n${this.logs(service, 20)}`);
      }
      if (condition === "service_healthy" && state.health === "healthy") return;
      if (condition === "service_started" && state.status === "running") return;
      if (condition !== "service_completed_successfully" && (state.status === "exited" || state.health === "unhealthy")) {
        throw new Error(`${service} is ${state.health ?? state.status} (exit ${state.exitCode}):\n${this.logs(service, 30)}`);
      }
      if (Date.now() > deadline) throw new Error(`${service} did not reach ${condition} within ${timeoutMs} ms (${state.health ?? state.status}):\n${this.logs(service, 30)}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  inspect(service: string): { status: string; health?: string; exitCode: number; restarts: number } | undefined {
    const result = spawnSync("docker", ["inspect", "--format", "{{json .State}}|{{.RestartCount}}", this.containerName(service)], { encoding: "utf8" });
    if (result.status !== 0) return undefined;
    const [json, restarts] = result.stdout.trim().split("|");
    const state = JSON.parse(json as string) as { Status: string; ExitCode: number; Health?: { Status: string } };
    return { status: state.Status, exitCode: state.ExitCode, restarts: Number(restarts), ...(state.Health ? { health: state.Health.Status } : {}) };
  }

  containerState(service: string): string | undefined {
    return this.inspect(service)?.status;
  }

  logs(service: string, tail?: number): string {
    const result = spawnSync("docker", ["logs", ...(tail ? ["--tail", String(tail)] : []), this.containerName(service)], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    return `${result.stdout}${result.stderr}`;
  }

  stop(service: string): void {
    this.docker(["stop", "--time", "20", this.containerName(service)]);
  }

  start(service: string): void {
    this.docker(["start", this.containerName(service)]);
  }

  restart(service: string): void {
    this.docker(["restart", "--time", "20", this.containerName(service)]);
  }

  remove(service: string): void {
    spawnSync("docker", ["rm", "-f", this.containerName(service)], { encoding: "utf8" });
  }

  /** `down`: every container of the project; with `volumes`, its named volumes too. */
  down(options: { volumes?: boolean } = {}): void {
    const listed = spawnSync("docker", ["ps", "-aq", "--filter", `label=com.docker.compose.project=${this.project}`], { encoding: "utf8" }).stdout.split("\n").filter(Boolean);
    if (listed.length > 0) this.docker(["rm", "-f", ...listed]);
    if (options.volumes) for (const volume of this.volumes) spawnSync("docker", ["volume", "rm", "-f", `${this.project}_${volume}`], { encoding: "utf8" });
  }

  imageExists(image: string): boolean {
    return spawnSync("docker", ["image", "inspect", image], { encoding: "utf8" }).status === 0;
  }

  /** Runs one docker command; throws with its output when it fails. */
  docker(args: readonly string[], options: { inherit?: boolean; timeoutMs?: number; input?: Buffer } = {}): string {
    this.options.log?.(`docker ${args.map(shellQuote).join(" ")}`);
    const stdin = options.input ? "pipe" : "ignore";
    const result = spawnSync("docker", args, {
      encoding: "utf8",
      timeout: options.timeoutMs ?? 120_000,
      maxBuffer: 64 * 1024 * 1024,
      stdio: options.inherit ? [stdin, "inherit", "inherit"] : [stdin, "pipe", "pipe"],
      ...(options.input ? { input: options.input } : {}),
    });
    if (result.status !== 0) throw new Error(`docker ${args.join(" ")} failed (${result.status ?? result.signal}):\n${result.stderr ?? ""}${result.stdout ?? ""}`);
    return result.stdout ?? "";
  }

  private volumeArg(volume: string): string {
    const [source, target, mode] = volume.split(":");
    if (!source || !target) throw new Error(`a volume this emulation cannot read: ${volume}`);
    const named = !source.startsWith(".") && !source.startsWith("/") && !source.startsWith("~");
    const host = named ? `${this.project}_${source}` : path.resolve(this.options.projectDir, source);
    return [host, target, ...(mode ? [mode] : [])].join(":");
  }
}

function dependsOn(spec: EmulatedService): Record<string, string> {
  const value = spec.depends_on ?? {};
  if (Array.isArray(value)) return Object.fromEntries(value.map((name) => [name, "service_started"]));
  return Object.fromEntries(Object.entries(value).map(([name, rule]) => [name, rule.condition ?? "service_started"]));
}

function environmentOf(spec: EmulatedService): Record<string, string> {
  const value = spec.environment ?? {};
  if (Array.isArray(value)) return Object.fromEntries(value.map((line) => [line.split("=")[0] as string, line.slice(line.indexOf("=") + 1)]));
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, entry === null ? "" : String(entry)]));
}

function pullFlag(policy: string | undefined): string {
  if (policy === "never" || policy === "build") return "never";
  if (policy === "always") return "always";
  return "missing";
}

/** ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?error}, ${VAR?error} and $$ in every string, as Compose interpolates. */
export function interpolate(value: Json, env: Readonly<Record<string, string | undefined>>): Json {
  if (typeof value === "string") {
    return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}/g, (whole, name: string | undefined, colon: string, kind: string, rest: string) => {
      if (whole === "$$") return "$";
      const current = env[name as string];
      const unset = current === undefined || (colon === ":" && current === "");
      if (kind === "-") return unset ? interpolate(rest, env) as string : (current as string);
      if (kind === "?") {
        if (unset) throw new Error(`required variable ${name} is missing a value: ${rest}`);
        return current as string;
      }
      return current ?? "";
    });
  }
  if (Array.isArray(value)) return value.map((item) => interpolate(item, env));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolate(item, env)]));
  return value;
}

function mergeDeep(base: Json, over: Json): Json {
  if (isMapping(base) && isMapping(over)) {
    const out: Record<string, Json> = { ...base };
    for (const [key, value] of Object.entries(over)) out[key] = key in base ? mergeDeep(base[key] as Json, value) : value;
    return out;
  }
  return over;
}

function isMapping(value: Json | undefined): value is Record<string, Json> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

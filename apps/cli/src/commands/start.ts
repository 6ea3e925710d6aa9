import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import type * as Core from "@thinktank/core";
import type { CliCommand, CliIo } from "../cli-command.js";
import { stopSignal } from "./stop-signal.js";

/** SIGKILL a service this long after SIGTERM, so a stop is over within 10 s. */
const graceMs = 8_000;

interface Service {
  readonly name: string;
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  /** The URL the service reports once it listens (never settles if it does not get there). */
  readonly listening: Promise<string>;
}

/**
 * `thinktank start`: the gateway and the agent server as child processes, their output prefixed
 * with `[gateway]` / `[agent]`. Ctrl-C, SIGINT or SIGTERM stops both (SIGTERM to each one's
 * process group, SIGKILL after 8 s); if either dies, the other is stopped and the exit code is 1.
 */
export const startCommand: CliCommand = {
  name: "start",
  summary: "Start the gateway (:8001) and the agent server (:2024); Ctrl-C stops both",
  usage: ["start                   ports, hosts and the API key from config.yaml or the environment"],
  async run(args, io) {
    if (args.length > 0) {
      io.stderr.write(`thinktank start: takes no arguments (got ${args.join(" ")})\n`);
      return 2;
    }
    const say = (line: string): void => void io.stdout.write(`[start] ${line}\n`);
    const stop = stopSignal(); // before launching: a Ctrl-C from now on stops the children too
    // The services start first: @thinktank/core and config.yaml take this process ~0.3 s, which
    // would otherwise come before their own start-up. They read the same config.yaml (same folder
    // and environment) and refuse a bad one or an unsafe address themselves; the check here says
    // so once, plainly, and stops them.
    const core = import("@thinktank/core");
    const services = [launch("gateway", serviceArgs("gateway"), core, io), launch("agent", serviceArgs("agent"), core, io)];
    let consoleEnabled = true;
    try {
      const { assertSafeBinding, loadConfig } = await core;
      const config = loadConfig({ env: io.env, cwd: io.cwd });
      assertSafeBinding(config.gateway.host, config.api_key);
      consoleEnabled = config.console.enabled;
    } catch (error) {
      await Promise.all(services.map((service) => shutDown(service)));
      stop.dispose();
      throw error;
    }
    for (const service of services) say(`${service.name} started (pid ${service.child.pid})`);

    const firstExit = Promise.race(services.map((service) => service.exited.then((code) => ({ service, code }))));
    let ended = false;
    // Ready only once every service says it listens: a port answering could be another program's.
    void Promise.all(services.map((service) => service.listening)).then(([gateway, agent]) => {
      if (ended) return;
      say(`ready: gateway ${gateway}  (API docs ${gateway}/docs)${agent ? `, agent ${agent}` : ""}`);
      // The web console (docs/console.md): the gateway serves it and proxies the agent under /agent.
      if (consoleEnabled && gateway) say(`console ${gateway}/`);
    });
    const outcome = await Promise.race([firstExit, new Promise<"stop">((resolve) => stop.signal.addEventListener("abort", () => resolve("stop"), { once: true }))]);
    ended = true;
    if (outcome !== "stop") say(`${outcome.service.name} exited (code ${outcome.code}); stopping the rest`);
    else say("stopping");
    await Promise.all(services.map((service) => shutDown(service)));
    // Only now: a second SIGINT during the stop (Ctrl-C reaches this process from the terminal and
    // again through `npm start`, which forwards it) must not kill it before its children are gone.
    stop.dispose();
    say("stopped");
    return outcome === "stop" ? 0 : 1;
  },
};

/**
 * A service's node arguments: the agent server's entry (it serves until SIGTERM/SIGINT), or the
 * `thinktank` bin for the gateway. The packages' "development" export condition picks the sources
 * (tests, `npm run dev`): then the children get that condition too (the bin registers tsx itself),
 * otherwise they run dist/ with plain node.
 */
function serviceArgs(service: "gateway" | "agent"): string[] {
  const agentEntry = fileURLToPath(import.meta.resolve("@thinktank/agent/start"));
  const fromSources = agentEntry.endsWith(".ts") ? ["--conditions=development"] : [];
  if (service === "gateway") return [...fromSources, fileURLToPath(import.meta.resolve("@thinktank/cli/bin")), "gateway"];
  return fromSources.length > 0 ? [...fromSources, "--import", import.meta.resolve("tsx"), agentEntry] : [agentEntry];
}

function launch(name: string, args: string[], core: Promise<typeof Core>, io: CliIo): Service {
  // Own process group (detached) so stopping also reaches whatever the service started; an IPC
  // channel so the service notices if this process dies without a chance to stop it.
  const child = spawn(process.execPath, args, { cwd: io.cwd, env: io.env, detached: true, stdio: ["ignore", "pipe", "pipe", "ipc"] });
  const prefix = (stream: NodeJS.ReadableStream | null, out: NodeJS.WritableStream): void => {
    if (stream) readline.createInterface({ input: stream }).on("line", (line) => out.write(`[${name}] ${line}\n`));
  };
  prefix(child.stdout, io.stdout);
  prefix(child.stderr, io.stderr);
  const exited = new Promise<number | null>((resolve) => child.on("close", (code, signal) => resolve(code ?? (signal ? 128 : null))));
  child.on("error", (error) => io.stderr.write(`[${name}] could not start: ${error.message}\n`));
  const listening = new Promise<string>((resolve) =>
    child.on("message", (message) => {
      void core.then(({ isServiceReadyMessage }) => isServiceReadyMessage(message) && resolve(clientUrl(message.url)));
    }),
  );
  return { name, child, exited, listening };
}

async function shutDown(service: Service): Promise<void> {
  const { child } = service;
  if (child.exitCode !== null || child.signalCode !== null) {
    signalGroup(child, "SIGKILL"); // the service is gone; make sure nothing it started lingers
    return;
  }
  signalGroup(child, "SIGTERM");
  const timer = setTimeout(() => signalGroup(child, "SIGKILL"), graceMs);
  await service.exited;
  clearTimeout(timer);
  signalGroup(child, "SIGKILL");
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is already gone
  }
}

/** Where a client on this machine reaches a server that listens on `url` (bound to 0.0.0.0 or ::, say). */
function clientUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.hostname === "0.0.0.0") parsed.hostname = "127.0.0.1";
  else if (parsed.hostname === "[::]") parsed.hostname = "[::1]";
  return parsed.origin;
}

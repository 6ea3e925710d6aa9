import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { HostConfinement, isThinktankError, protectedReference, serviceSecretVariables } from "@thinktank/core";
import type { ExecutionLog } from "../log/execution-log.js";
import { recordCall } from "../log/record-call.js";
import { SchemaCompiler } from "../registry/schema-compiler.js";
import type { RunnableTool } from "../registry/tool-definition.js";
import type { ToolRegistry } from "../registry/tool-registry.js";
import { toolFailure, toolSuccess } from "../tool-response.js";
import type { ToolResponse } from "../tool-response.js";
import { InterpreterResolver } from "./interpreters.js";
import { runScript } from "./run-script.js";
import type { SandboxedScriptOutcome, SandboxedScriptRunner, ScriptNetwork } from "./sandboxed-script-runner.js";
import { defaultScriptPath, scriptEnvironment } from "./script-environment.js";

export interface ToolExecutorOptions {
  /** Where `invoke(name)` looks tools up (hot: every call sees the current registry). */
  readonly registry?: ToolRegistry;
  /** Where every call is recorded. @default not recorded */
  readonly log?: ExecutionLog;
  /** Validates arguments and outputs. @default the registry's compiler, else a new one */
  readonly compiler?: SchemaCompiler;
  /** PATH for scripts and for finding python3 and bash (the entry point passes config.env.PATH). @default defaultScriptPath */
  readonly searchPath?: string;
  /** Finds each runtime's interpreter. @default new InterpreterResolver({ searchPath }) */
  readonly interpreters?: InterpreterResolver;
  /** Where `${VAR}` placeholders of a tool's `env` resolve (config.env). @default {} */
  readonly variables?: Readonly<Record<string, string | undefined>>;
  /**
   * Runs untrusted tools (`trusted: false`) in the sandbox (the agent wires @thinktank/sandbox's
   * `createSandboxScriptRunner`). @default none: an untrusted tool answers TOOL_UNAVAILABLE, never runs on the host
   */
  readonly sandboxRunner?: SandboxedScriptRunner;
  /**
   * Variables an untrusted tool's `env` placeholders never expand (the service's own secrets): such a
   * tool is unavailable, with the reason. @default serviceSecretVariables() of @thinktank/core (THINKTANK_*, ANTHROPIC_API_KEY, OPENAI_API_KEY); createToolsService passes config's
   */
  readonly protectedVariables?: (name: string) => boolean;
  /** Parent folder of the per-call working folders. @default os.tmpdir() */
  readonly workRoot?: string;
  /**
   * Confines trusted tools' scripts on the host (a pid namespace of their own, the data folder
   * hidden; docs/architecture.md, "Confined on the host"). @default a HostConfinement hiding nothing (createToolsService passes hostConfinementFor(config))
   */
  readonly hostConfinement?: HostConfinement;
  /** Standard output beyond this fails the call (TOOL_OUTPUT_TOO_LARGE). @default 8 MiB */
  readonly maxOutputBytes?: number;
  /** How much of the end of standard error a failure reports. @default 4096 */
  readonly stderrTailBytes?: number;
  /** Wall clock of the log's started_at. @default () => new Date() */
  readonly clock?: () => Date;
}

export interface InvokeOptions {
  /** Aborting kills the script's process tree; the call answers CANCELLED. */
  readonly signal?: AbortSignal;
  /** Who calls ("agent", "cli", "code", ...), recorded in the log. */
  readonly source?: string;
  readonly threadId?: string;
  readonly runId?: string;
}

/**
 * Runs registered script tools. Arguments are checked against input_schema before anything
 * starts; the script gets them as JSON on stdin, in a fresh working folder with a clean
 * environment, and must print one JSON value, which is checked against output_schema. The
 * whole process tree is killed on timeout. Every call answers a ToolResponse (never throws)
 * and is recorded in the execution log.
 */
export class ToolExecutor {
  private readonly compiler: SchemaCompiler;
  private readonly interpreters: InterpreterResolver;
  private readonly searchPath: string;
  private readonly clock: () => Date;
  private readonly hostConfinement: HostConfinement;
  private readonly isProtected: (name: string) => boolean;

  constructor(private readonly options: ToolExecutorOptions = {}) {
    this.compiler = options.compiler ?? options.registry?.compiler ?? new SchemaCompiler();
    this.searchPath = options.searchPath ?? defaultScriptPath;
    this.isProtected = options.protectedVariables ?? serviceSecretVariables();
    this.interpreters = options.interpreters ?? new InterpreterResolver({ searchPath: this.searchPath });
    this.clock = options.clock ?? (() => new Date());
    this.hostConfinement = options.hostConfinement ?? new HostConfinement({ searchPath: this.searchPath });
  }

  /** Calls a registered tool by name: TOOL_NOT_FOUND / TOOL_DISABLED answers when it cannot run. */
  async invoke(name: string, args: unknown, options: InvokeOptions = {}): Promise<ToolResponse> {
    const started = this.clock();
    const startedMs = performance.now();
    let tool: RunnableTool | undefined;
    let lookupFailure: ToolResponse | undefined;
    try {
      tool = await this.options.registry?.runnable(name);
    } catch (error) {
      // extensions_config.json missing or unreadable: say so rather than "no such tool".
      lookupFailure = isThinktankError(error) ? toolFailure(error.code, error.message) : toolFailure("TOOL_EXECUTION_ERROR", `the tools registry could not be read: ${(error as Error).message}`);
    }
    if (!tool || !tool.enabled) {
      const response =
        lookupFailure ??
        (tool ? toolFailure("TOOL_DISABLED", `tool '${name}' is disabled (enable it with PUT /api/tools/${name} {"enabled": true})`) : toolFailure("TOOL_NOT_FOUND", `no registered tool named '${name}'`));
      await recordCall(this.options.log, name, args, { at: started, ms: startedMs }, response, options);
      return response;
    }
    return this.perform(tool, args, options, started, startedMs);
  }

  /** Runs a tool whose definition the caller holds (a skill-scoped tool, say), enabled or not. */
  run(tool: RunnableTool, args: unknown, options: InvokeOptions = {}): Promise<ToolResponse> {
    return this.perform(tool, args, options, this.clock(), performance.now());
  }

  /**
   * Whether the tool can run here, and why not: a trusted tool runs on the host; an untrusted one only
   * in the sandbox, so it needs the sandbox runner, a folder to mount, a runtime the sandbox's backend
   * runs (the deno backend runs no shell script), and an `env` that names none of the service's own
   * secrets. A tool that cannot run is not offered; a call of it answers TOOL_UNAVAILABLE with the reason.
   */
  async availability(tool: RunnableTool): Promise<{ ok: true } | { ok: false; reason: string }> {
    if (tool.trusted) return { ok: true };
    const runner = this.options.sandboxRunner;
    if (!runner) return { ok: false, reason: "it is untrusted code, which runs only in the sandbox, and this server runs tools without one" };
    if (!tool.folder) return { ok: false, reason: "it is untrusted code without a folder (a skill's) for the sandbox to hold its script" };
    const secret = protectedReference(tool.env, this.isProtected);
    if (secret !== undefined) return { ok: false, reason: `its env refers to $${secret}, one of this service's own secrets, which no untrusted script is given` };
    return runner.supports(tool.runtime);
  }

  private async perform(tool: RunnableTool, args: unknown, options: InvokeOptions, started: Date, startedMs: number): Promise<ToolResponse> {
    let response: ToolResponse;
    const ran: CallFacts = {};
    try {
      response = await this.execute(tool, args, options, ran);
    } catch (error) {
      response = isThinktankError(error) ? toolFailure(error.code, error.message, error.details ? { ...error.details } : undefined) : toolFailure("TOOL_EXECUTION_ERROR", `'${tool.name}' could not run: ${(error as Error).message}`);
    }
    await recordCall(this.options.log, tool.name, args, { at: started, ms: startedMs }, response, options, { sandboxed: !tool.trusted, ...(ran.network ? { network: ran.network } : {}) });
    return response;
  }

  private async execute(tool: RunnableTool, args: unknown, options: InvokeOptions, ran: CallFacts): Promise<ToolResponse> {
    // Cancelled while waiting its turn (ToolScheduler) or before the call came: start nothing.
    if (options.signal?.aborted) return toolFailure("CANCELLED", `the call to '${tool.name}' was cancelled before its script started`);
    if (!tool.trusted) {
      const available = await this.availability(tool);
      if (!available.ok) return toolFailure("TOOL_UNAVAILABLE", `'${tool.name}' cannot run here: ${available.reason}`, { trusted: false });
    }
    if (args === null || typeof args !== "object" || Array.isArray(args)) {
      return toolFailure("TOOL_INVALID_ARGUMENTS", `the arguments of '${tool.name}' must be a JSON object, got ${Array.isArray(args) ? "a list" : args === null ? "null" : typeof args}`);
    }
    const inputProblems = this.compiler.validate(tool.input_schema, args, "arguments");
    if (inputProblems.length > 0) {
      return toolFailure("TOOL_INVALID_ARGUMENTS", `the arguments of '${tool.name}' do not match its input_schema: ${summarize(inputProblems)}`, { problems: inputProblems });
    }
    if (!(await isFile(tool.scriptPath))) {
      return toolFailure("TOOL_EXECUTION_ERROR", `the script of '${tool.name}' (${path.basename(tool.scriptPath)}) is missing from the tools folder; register the tool again with its script`);
    }
    if (!tool.trusted) return this.executeSandboxed(tool, args, options, ran);
    const interpreter = await this.interpreters.resolve(tool.runtime);
    const workDir = await fs.promises.mkdtemp(path.join(this.options.workRoot ?? os.tmpdir(), "tt-tool-"));
    try {
      // Where the script runs as a dedicated user (no pid namespace here), its working folder is that user's.
      this.hostConfinement.handOver(workDir);
      const { env } = scriptEnvironment({ searchPath: this.searchPath, workDir, toolName: tool.name, variables: this.options.variables ?? {}, ...(tool.env ? { toolEnv: tool.env } : {}) });
      const outcome = await runScript({
        command: interpreter.command,
        args: [...interpreter.args, tool.scriptPath],
        cwd: workDir,
        env,
        confinement: this.hostConfinement,
        input: JSON.stringify(args),
        timeoutMs: tool.timeout * 1000,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(this.options.maxOutputBytes !== undefined ? { maxStdoutBytes: this.options.maxOutputBytes } : {}),
        ...(this.options.stderrTailBytes !== undefined ? { stderrTailBytes: this.options.stderrTailBytes } : {}),
      });
      return this.interpret(tool, outcome, interpreter.command);
    } finally {
      await fs.promises.rm(workDir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  /**
   * An untrusted tool, in the sandbox: the same arguments on stdin, timeout, output cap and
   * interpretation as on the host. Its `env` placeholders never expand the service's own secrets
   * (`availability` refused such a tool already; they are left out of the variables too).
   */
  private async executeSandboxed(tool: RunnableTool, args: object, options: InvokeOptions, ran: CallFacts): Promise<ToolResponse> {
    const runner = this.options.sandboxRunner as SandboxedScriptRunner;
    const variables = Object.fromEntries(Object.entries(this.options.variables ?? {}).filter(([name]) => !this.isProtected(name)));
    const { env } = scriptEnvironment({ toolName: tool.name, variables, ...(tool.env ? { toolEnv: tool.env } : {}) });
    const outcome = await runner.run({
      toolName: tool.name,
      runtime: tool.runtime,
      scriptPath: tool.scriptPath,
      folder: tool.folder as NonNullable<RunnableTool["folder"]>,
      input: JSON.stringify(args),
      env,
      timeoutMs: tool.timeout * 1000,
      ...(options.signal ? { signal: options.signal } : {}),
      network: tool.network ?? [],
      maxStdoutBytes: this.options.maxOutputBytes ?? defaultMaxOutputBytes,
      stderrTailBytes: this.options.stderrTailBytes ?? defaultStderrTailBytes,
    });
    if (outcome.network) ran.network = outcome.network;
    return this.interpret(tool, outcome, `the sandbox's ${tool.runtime}`);
  }

  private interpret(tool: RunnableTool, outcome: SandboxedScriptOutcome, command: string): ToolResponse {
    const name = tool.name;
    const stderr = (tail: string): Record<string, unknown> => (tail.trim() ? { stderr_tail: tail } : {});
    switch (outcome.kind) {
      case "sandbox-failed":
        return toolFailure(outcome.code, `'${name}' ${outcome.message}`, stderr(outcome.stderrTail));
      case "spawn-failed":
        return toolFailure("TOOL_EXECUTION_ERROR", `'${name}' could not start (${command}): ${outcome.message}`);
      case "timeout":
        return toolFailure("TIMEOUT", `'${name}' did not finish within ${tool.timeout} s; its process tree was killed`, { timeout_seconds: tool.timeout, ...stderr(outcome.stderrTail) });
      case "cancelled":
        return toolFailure("CANCELLED", `the call to '${name}' was cancelled; its process tree was killed`);
      case "output-too-large":
        return toolFailure("TOOL_OUTPUT_TOO_LARGE", `'${name}' printed more than ${outcome.limit} bytes on stdout; it was stopped`, { limit_bytes: outcome.limit });
      case "exited":
        break;
    }
    if (outcome.exitCode !== 0) {
      const how = outcome.exitCode === null ? `was killed by ${outcome.signal ?? "a signal"}` : `exited with code ${outcome.exitCode}`;
      const lastLine = outcome.stderrTail.trim().split("\n").at(-1);
      return toolFailure("TOOL_SCRIPT_FAILED", `'${name}' ${how}${lastLine ? `: ${lastLine}` : ""}`, { exit_code: outcome.exitCode, signal: outcome.signal, ...stderr(outcome.stderrTail) });
    }
    const text = outcome.stdout.trim();
    if (text === "") return toolFailure("TOOL_OUTPUT_NOT_JSON", `'${name}' printed nothing: a tool prints one JSON value on stdout (logs go to stderr)`, stderr(outcome.stderrTail));
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (error) {
      return toolFailure("TOOL_OUTPUT_NOT_JSON", `'${name}' printed something that is not JSON (${(error as Error).message}): a tool prints one JSON value on stdout (logs go to stderr)`, {
        stdout_preview: text.slice(0, 300),
        ...stderr(outcome.stderrTail),
      });
    }
    if (tool.output_schema) {
      const problems = this.compiler.validate(tool.output_schema, data, "output");
      if (problems.length > 0) return toolFailure("TOOL_OUTPUT_INVALID", `the output of '${name}' does not match its output_schema: ${summarize(problems)}`, { problems });
    }
    return toolSuccess(data);
  }

}

/** What a call learnt while it ran, for its log record: a sandboxed script's egress connections. */
interface CallFacts {
  network?: ScriptNetwork;
}

/** As runScript's defaults: stdout beyond 8 MiB fails the call; 4 KiB of stderr's end is kept. */
const defaultMaxOutputBytes = 8 * 1024 * 1024;
const defaultStderrTailBytes = 4096;

function summarize(problems: readonly { path: string; message: string }[]): string {
  return problems.map((problem) => `${problem.path}: ${problem.message}`).join("; ");
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await fs.promises.stat(file)).isFile();
  } catch {
    return false;
  }
}

import { fromClaudeToolInput, hookToolNames, type HookToolCall } from "./claude-tool-input.js";
import { hookInput, type HookEventPayload, type HookSessionFacts, type HookSubagent } from "./hook-input.js";
import type { HookCommand, HookCommandRunner, HookEventName, HookRunRecord, HookVerdict } from "./hook-types.js";
import { interpretHookResult } from "./interpret-hook-result.js";
import type { PluginHooks } from "./plugin-hooks.js";

/** Where hook runs are logged: ran at debug, failed (non-blocking) at warn. Pino and the MCP manager's logger fit. */
export interface HookLogger {
  debug(details: Record<string, unknown>, message: string): void;
  warn(details: Record<string, unknown>, message: string): void;
}

export interface HookSessionOptions {
  readonly hooks: PluginHooks;
  readonly runner: HookCommandRunner;
  /** The session (thread) and the working folder the hooks see. */
  readonly facts: HookSessionFacts;
  /** @default a logger that drops everything */
  readonly logger?: HookLogger;
  /** A hook's timeout is cut to this many seconds (the sandbox's config.code_execution.max_timeout_seconds). @default no cut */
  readonly maxTimeoutSeconds?: number;
  /** Milliseconds for `ms`. @default performance.now */
  readonly now?: () => number;
}

export interface HookRunOptions {
  /** The run's signal: cancelling the run stops its hooks. */
  readonly signal?: AbortSignal;
  /** Each hook's record as it ends (the run's `custom` events). */
  readonly onRecord?: (record: HookRunRecord) => void;
}

/** The context a hook added, and whose it is. */
export interface HookContext {
  readonly plugin: string;
  readonly text: string;
}

/** What the hooks of one event decided together. */
export interface HookEventResult {
  readonly event: HookEventName;
  /** How many hooks ran (0: none matched; nothing was started). */
  readonly ran: number;
  /** A hook blocked (exit 2, `decision: "block"`, PreToolUse `deny`): the reasons, one a line. */
  readonly blocked?: { readonly reason: string; readonly plugins: readonly string[] };
  /** A hook said `continue: false`: stop the run, telling the user `reason` when given. */
  readonly stop?: { readonly reason?: string; readonly plugin: string };
  /** Context for the model, in hook order. */
  readonly context: readonly HookContext[];
  /** PreToolUse: deny over ask over allow, when any hook decided. */
  readonly decision?: "allow" | "deny" | "ask";
  /** PreToolUse: why it was asked (a reason given with `ask`). */
  readonly askReason?: string;
  /** PreToolUse with `updatedInput`: the agent tool's arguments to run with (every update merged, in hook order). */
  readonly args?: Readonly<Record<string, unknown>>;
}

const silent: HookLogger = { debug() {}, warn() {} };
const excerptLength = 2000;

/**
 * The hooks of one run: selects the enabled plugins' command hooks for an event (PluginHooks),
 * builds Claude Code's input, runs them side by side through the runner (each with its own timeout;
 * one that fails or hangs never stops the others or the run), reads each result (interpretHookResult)
 * and combines them. `has(event)` first: an event no plugin hooks starts nothing.
 */
export class HookSession {
  private readonly logger: HookLogger;
  private readonly now: () => number;

  constructor(private readonly options: HookSessionOptions) {
    this.logger = options.logger ?? silent;
    this.now = options.now ?? (() => performance.now());
  }

  has(event: HookEventName): boolean {
    return this.options.hooks.has(event);
  }

  sessionStart(source: "startup" | "resume" | "clear" | "compact", options?: HookRunOptions): Promise<HookEventResult> {
    return this.run({ event: "SessionStart", source }, options);
  }

  userPromptSubmit(prompt: string, options?: HookRunOptions): Promise<HookEventResult> {
    return this.run({ event: "UserPromptSubmit", prompt }, options);
  }

  preToolUse(call: HookToolCall, options?: HookRunOptions): Promise<HookEventResult> {
    return this.run({ event: "PreToolUse", call }, options);
  }

  postToolUse(call: HookToolCall, response: unknown, options?: HookRunOptions): Promise<HookEventResult> {
    return this.run({ event: "PostToolUse", call, response }, options);
  }

  stop(stopHookActive: boolean, options?: HookRunOptions): Promise<HookEventResult> {
    return this.run({ event: "Stop", stopHookActive }, options);
  }

  /** A sub-agent finished (its model answered without a tool call); `lastAssistantMessage` is that answer's text. */
  subagentStop(agent: HookSubagent, stopHookActive: boolean, lastAssistantMessage: string, options?: HookRunOptions): Promise<HookEventResult> {
    return this.run({ event: "SubagentStop", stopHookActive, agent, lastAssistantMessage }, options);
  }

  async run(payload: HookEventPayload, options: HookRunOptions = {}): Promise<HookEventResult> {
    const { event } = payload;
    const call = payload.event === "PreToolUse" || payload.event === "PostToolUse" ? payload.call : undefined;
    const names = call ? hookToolNames(call) : payload.event === "SessionStart" ? [payload.source] : payload.event === "SubagentStop" ? payload.agent.names : [];
    const commands = this.options.hooks.select(event, names);
    if (commands.length === 0) return { event, ran: 0, context: [] };
    const stdin = JSON.stringify(hookInput(this.options.facts, payload));
    const agentType = payload.event === "SubagentStop" ? payload.agent.type : undefined;
    const verdicts = await Promise.all(commands.map((command) => this.runOne(command, stdin, call, options, agentType)));
    return combine(event, commands, verdicts, call);
  }

  private async runOne(command: HookCommand, stdin: string, call: HookToolCall | undefined, options: HookRunOptions, agentType: string | undefined): Promise<HookVerdict> {
    const { maxTimeoutSeconds } = this.options;
    const seconds = maxTimeoutSeconds === undefined ? command.timeoutSeconds : Math.min(command.timeoutSeconds, maxTimeoutSeconds);
    const started = this.now();
    const result = await this.options.runner.run({
      plugin: command.plugin,
      pluginRoot: command.pluginRoot,
      command: command.command,
      stdin,
      timeoutMs: seconds * 1000,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const ms = Math.round((this.now() - started) * 100) / 100;
    const verdict = interpretHookResult(command.event, result);
    const record: HookRunRecord = {
      type: "hook",
      event: command.event,
      plugin: command.plugin,
      command: command.command,
      outcome: verdict.outcome,
      ms,
      exit_code: result.exitCode,
      ...(call ? { tool: call.name, ...(call.id ? { tool_use_id: call.id } : {}) } : {}),
      ...(agentType !== undefined ? { agent_type: agentType } : {}),
      ...(verdict.decision ? { decision: verdict.decision } : {}),
      ...(verdict.reason !== undefined ? { reason: verdict.reason } : {}),
      ...(verdict.updatedInput ? { updated_input: true as const } : {}),
      ...(verdict.context ? { context: true as const } : {}),
      ...(verdict.stopReason !== undefined ? { stop_reason: verdict.stopReason } : {}),
      ...(verdict.systemMessage !== undefined ? { system_message: verdict.systemMessage } : {}),
      ...(verdict.note ? { note: verdict.note } : {}),
      ...(result.stdout && !verdict.suppressOutput ? { stdout: result.stdout.slice(0, excerptLength) } : {}),
      ...(result.stderr ? { stderr: result.stderr.slice(0, excerptLength) } : {}),
    };
    const failed = verdict.outcome === "error" || verdict.outcome === "timeout";
    const logged = { event: record.event, plugin: record.plugin, command: record.command, outcome: record.outcome, ms, exit_code: record.exit_code, ...(record.reason ? { reason: record.reason } : {}) };
    if (failed) this.logger.warn(logged, `plugin hook failed (non-blocking): ${command.plugin} ${command.event}: ${verdict.reason ?? verdict.outcome}`);
    else this.logger.debug(logged, `plugin hook ran: ${command.plugin} ${command.event} → ${verdict.outcome}`);
    options.onRecord?.(record);
    return verdict;
  }
}

function combine(event: HookEventName, commands: readonly HookCommand[], verdicts: readonly HookVerdict[], call: HookToolCall | undefined): HookEventResult {
  const reasons: string[] = [];
  const blockers: string[] = [];
  const context: HookContext[] = [];
  let stop: HookEventResult["stop"];
  let decision: HookEventResult["decision"];
  let askReason: string | undefined;
  let updated: Record<string, unknown> | undefined;
  verdicts.forEach((verdict, index) => {
    const plugin = (commands[index] as HookCommand).plugin;
    if (verdict.context) context.push({ plugin, text: verdict.context });
    if (verdict.outcome === "stop" && !stop) stop = { plugin, ...(verdict.stopReason !== undefined ? { reason: verdict.stopReason } : {}) };
    if (verdict.outcome === "block") {
      reasons.push(verdict.reason ?? `a ${event} hook blocked this`);
      blockers.push(plugin);
    }
    if (verdict.decision && rank(verdict.decision) > rank(decision)) decision = verdict.decision;
    if (verdict.decision === "ask" && verdict.reason && askReason === undefined) askReason = verdict.reason;
    if (verdict.updatedInput && verdict.outcome === "ok") updated = { ...updated, ...verdict.updatedInput };
  });
  if (event === "PreToolUse" && blockers.length > 0) decision = "deny";
  return {
    event,
    ran: commands.length,
    ...(blockers.length > 0 ? { blocked: { reason: reasons.join("\n"), plugins: [...new Set(blockers)] } } : {}),
    ...(stop ? { stop } : {}),
    context,
    ...(decision ? { decision } : {}),
    ...(askReason !== undefined ? { askReason } : {}),
    ...(updated && call ? { args: fromClaudeToolInput(call, updated) } : {}),
  };
}

/** deny > ask > allow > none. */
function rank(decision: HookEventResult["decision"]): number {
  return decision === "deny" ? 3 : decision === "ask" ? 2 : decision === "allow" ? 1 : 0;
}

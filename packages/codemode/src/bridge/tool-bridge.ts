import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { Socket } from "node:net";
import { ThinktankError } from "@thinktank/core";
import type { CatalogTool, InputRequests, InputRequiredHandler } from "@thinktank/mcp";
import type { ToolCallRecord } from "../code-mode-types.js";
import type { ToolInvoker } from "../invoker/tool-invoker.js";
import type { CallReplay, RecordedCall } from "../replay/call-replay.js";
import type { ArgumentValidator } from "./argument-validator.js";
import { bridgeFailure, failureFromError, type BridgeFailure } from "./bridge-errors.js";
import { failureBody, firstText, parseCall, pausedFailure, readBody, send, sendJson } from "./bridge-http.js";
import { ToolCallLog } from "./tool-call-log.js";

/**
 * A person to ask when a tool answers `input_required` (execute_code in a run that can pause), and
 * the record of the calls made before such a pause (CallReplay).
 */
export interface BridgeInput {
  /** Answers one input_required round; what it throws either fails the call or pauses the execution (`pauses`). */
  readonly ask: InputRequiredHandler;
  /** Whether what `ask` threw pauses the execution (a LangGraph interrupt) rather than failing the call. */
  readonly pauses: (error: unknown) => boolean;
  readonly replay: CallReplay;
  /** Called once, at the first pause: the execution is to end (its program stopped). */
  readonly onPause: () => void;
}

/** Finds the tool source that answers for a server name (enabled servers only). */
export interface ToolRouter {
  find(server: string): ToolInvoker | undefined;
  /** Every enabled server, for the message when a name is unknown. */
  serverNames(): readonly string[];
}

export interface ToolBridgeOptions {
  readonly router: ToolRouter;
  readonly validator: ArgumentValidator;
  /** Where to listen: a path in a folder only the host user can enter (the sandbox reaches it through its own proxy). */
  readonly socketPath: string;
  /** The per-execution secret. @default 32 random bytes, base64url */
  readonly token?: string;
  /** Largest request body. @default 4 MiB */
  readonly maxBodyBytes?: number;
  /** Calls kept in the audit trail. @default 100 */
  readonly maxRecords?: number;
  /** Tool calls of one execution running at once; more wait their turn (a Promise.all over 5,000 calls must not flood a server). @default 16 */
  readonly maxConcurrentCalls?: number;
  /** @default performance.now */
  readonly now?: () => number;
  /** @default none: a call that asks for input fails with MCP_INPUT_REQUIRED, and nothing is replayed */
  readonly input?: BridgeInput;
}

const defaultMaxBodyBytes = 4 * 1024 * 1024;

/**
 * The bridge of one execution: HTTP/1.1 on a Unix socket, `POST /call` with
 * `authorization: Bearer <token>` and `{ server, tool, arguments }`. A call reaches a tool only if
 * the token matches, the server is enabled, the tool is in its tool list and the arguments are
 * valid against its inputSchema; it answers `{ ok: true, isError, structuredContent?, content }`
 * or `{ ok: false, error: { code, message } }` with the matching status (docs/bridge.md).
 * Every call is recorded for `tools_called`. `close()` cancels calls still running.
 */
export class ToolBridge {
  readonly socketPath: string;
  readonly token: string;
  private readonly log: ToolCallLog;
  private readonly aborter = new AbortController();
  private readonly now: () => number;
  private readonly expectedDigest: Buffer;
  private readonly waiting: (() => void)[] = [];
  private running = 0;
  private closed = false;
  private paused: { readonly error: unknown } | undefined;

  private constructor(
    private readonly server: http.Server,
    private readonly options: ToolBridgeOptions,
    token: string,
  ) {
    this.socketPath = options.socketPath;
    this.token = token;
    this.log = new ToolCallLog(options.maxRecords);
    this.now = options.now ?? (() => performance.now());
    this.expectedDigest = digest(token);
  }

  static async open(options: ToolBridgeOptions): Promise<ToolBridge> {
    const token = options.token ?? crypto.randomBytes(32).toString("base64url");
    const server = http.createServer();
    const bridge = new ToolBridge(server, options, token);
    server.on("request", (request, response) => void bridge.handle(request, response));
    fs.rmSync(options.socketPath, { force: true });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.socketPath, () => {
        server.off("error", reject);
        resolve();
      });
    });
    fs.chmodSync(options.socketPath, 0o600);
    return bridge;
  }

  /**
   * Serves a connection accepted elsewhere in this process (the sandbox's proxy socket), as if it
   * had been made to the bridge's own socket: the token is checked the same way.
   */
  accept(socket: Socket): void {
    if (this.closed) socket.destroy();
    else this.server.emit("connection", socket);
  }

  /** What `input.ask` threw to pause the execution, when it did. */
  pausedBy(): { readonly error: unknown } | undefined {
    return this.paused;
  }

  /** The audit trail so far. */
  calls(): { tools_called: ToolCallRecord[]; omitted: number } {
    return this.log.snapshot();
  }

  /** Stops listening, cancels running calls, drops open connections and removes the socket. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.aborter.abort(new Error("the execution ended"));
    const closing = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closing;
    fs.rmSync(this.socketPath, { force: true });
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const started = this.now();
    if (!this.authorized(request.headers.authorization)) {
      request.resume();
      send(response, bridgeFailure("UNAUTHORIZED", "missing or wrong bridge token (Authorization: Bearer $THINKTANK_BRIDGE_TOKEN)"));
      return;
    }
    if (request.method !== "POST" || (request.url ?? "").split("?")[0] !== "/call") {
      request.resume();
      send(response, bridgeFailure("NOT_FOUND", `the bridge answers POST /call only, not ${request.method ?? "?"} ${request.url ?? ""}`));
      return;
    }
    const body = await readBody(request, this.options.maxBodyBytes ?? defaultMaxBodyBytes);
    if (!body.ok) {
      this.record("(unreadable request)", started, body.failure);
      send(response, body.failure);
      return;
    }
    const parsed = parseCall(body.text);
    if (!parsed.ok) {
      this.record(parsed.label, started, parsed.failure);
      send(response, parsed.failure);
      return;
    }
    const { server, tool, args } = parsed;
    const label = `${server}.${tool}`;
    if (this.paused) {
      send(response, pausedFailure());
      return;
    }
    const input = this.options.input;
    const recorded = input?.replay.take(server, tool, args);
    if (recorded) {
      await this.replay(response, server, tool, started, recorded);
      return;
    }
    // A program that goes away (killed, timed out) cancels its call.
    const callAborter = new AbortController();
    response.on("close", () => {
      if (!response.writableFinished) callAborter.abort(new Error("the program closed the connection"));
    });
    const signal = AbortSignal.any([this.aborter.signal, callAborter.signal]);
    try {
      const invoker = this.options.router.find(server);
      if (!invoker) {
        const known = this.options.router.serverNames();
        throw new ThinktankError("MCP_SERVER_NOT_FOUND", `no enabled server named '${server}' (enabled: ${known.join(", ") || "none"})`);
      }
      const definition = await findTool(invoker, server, tool);
      const check = this.options.validator.check(definition, args);
      if (!check.ok) throw new ThinktankError("VALIDATION_FAILED", `invalid arguments for ${label}: ${check.problems.join("; ")}`, { details: { problems: check.problems } });
      const rounds: InputRequests[] = [];
      const onInputRequired: InputRequiredHandler | undefined = input
        ? (requests, context) => {
            rounds.push(requests);
            return this.ask(requests, context);
          }
        : undefined;
      const result = await this.throttled(signal, () => invoker.callTool(server, tool, args, { signal, ...(onInputRequired ? { onInputRequired } : {}) }));
      const isError = result.isError === true;
      const content = Array.isArray(result.content) ? result.content : [];
      this.log.add({
        tool: label,
        status: isError ? "error" : "ok",
        ms: elapsed(started, this.now()),
        ...(isError ? { error: { code: "TOOL_ERROR", message: firstText(content) } } : {}),
      });
      const body = { ok: true, isError, ...(result.structuredContent != null ? { structuredContent: result.structuredContent } : {}), content };
      if (!this.paused) input?.replay.add({ server, tool, args, answer: { status: 200, body }, inputRounds: rounds });
      sendJson(response, 200, body);
    } catch (error) {
      if (this.paused) {
        // The execution ends for a person's answer: this call (the one that asked, or one cut short) is made again on resume.
        send(response, pausedFailure());
        return;
      }
      const failure = failureFromError(error);
      this.record(label, started, failure);
      input?.replay.add({ server, tool, args, answer: { status: failure.status, body: failureBody(failure) }, inputRounds: [] });
      send(response, failure);
    }
  }

  /**
   * A call answered from the record of the execution before the pause: its input rounds are asked
   * again first (a LangGraph interrupt answers each from the resume values at once, keeping their
   * count in step), then the program gets the recorded answer; the tool is not called.
   */
  private async replay(response: http.ServerResponse, server: string, tool: string, started: number, recorded: RecordedCall): Promise<void> {
    const { answer } = recorded;
    try {
      for (const [round, requests] of recorded.inputRounds.entries()) await this.ask(requests, { server, tool, round });
    } catch (error) {
      if (this.paused) send(response, pausedFailure());
      else send(response, failureFromError(error));
      return;
    }
    const ok = answer.body.ok === true;
    const isError = ok && answer.body.isError === true;
    const failed = answer.body.error as { code?: string; message?: string } | undefined;
    this.log.add({
      tool: `${server}.${tool}`,
      status: ok && !isError ? "ok" : "error",
      ms: elapsed(started, this.now()),
      replayed: true,
      ...(isError ? { error: { code: "TOOL_ERROR", message: firstText(Array.isArray(answer.body.content) ? answer.body.content : []) } } : {}),
      ...(!ok ? { error: { code: String(failed?.code ?? "INTERNAL"), message: String(failed?.message ?? "") } } : {}),
    });
    sendJson(response, answer.status, answer.body);
  }

  /** One input round through `input.ask`; a throw that pauses marks the execution paused (once) and ends it. */
  private async ask(requests: InputRequests, context: { server: string; tool: string; round: number }): ReturnType<InputRequiredHandler> {
    const input = this.options.input as BridgeInput;
    try {
      return await input.ask(requests, context);
    } catch (error) {
      if (!this.paused && input.pauses(error)) {
        this.paused = { error };
        input.onPause();
      }
      throw error;
    }
  }

  /** Runs `call` when fewer than maxConcurrentCalls are running; a finishing call hands its slot to the next in line. */
  private async throttled<T>(signal: AbortSignal, call: () => Promise<T>): Promise<T> {
    if (this.running >= (this.options.maxConcurrentCalls ?? 16)) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      if (signal.aborted) throw new ThinktankError("SERVICE_UNAVAILABLE", "the call was cancelled: the program ended");
      return await call();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }

  private authorized(header: string | undefined): boolean {
    const match = typeof header === "string" ? /^Bearer\s+(.+)$/i.exec(header) : null;
    if (!match) return false;
    return crypto.timingSafeEqual(digest(match[1] as string), this.expectedDigest);
  }

  private record(tool: string, started: number, failure: BridgeFailure): void {
    this.log.add({ tool, status: "error", ms: elapsed(started, this.now()), error: { code: failure.code, message: failure.message } });
  }
}

/** The tool's definition from the known list; a tool missing from a cached list is looked up live once. */
async function findTool(invoker: ToolInvoker, server: string, tool: string): Promise<CatalogTool> {
  const known = invoker.knownTools(server);
  const listed = known ?? (await invoker.listTools(server));
  let definition = listed.find((candidate) => candidate.name === tool);
  if (!definition && known) definition = (await invoker.listTools(server)).find((candidate) => candidate.name === tool);
  if (!definition) throw new ThinktankError("MCP_TOOL_NOT_FOUND", `server '${server}' has no tool '${tool}' (search_tools lists its tools)`);
  return definition;
}

function digest(text: string): Buffer {
  return crypto.createHash("sha256").update(text).digest();
}

function elapsed(started: number, now: number): number {
  return Math.round((now - started) * 100) / 100;
}

import { Client, type DiscoverResult, type Transport } from "@modelcontextprotocol/client";
import type { CallToolResult, ReadResourceRequest, ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { ThinktankError } from "@thinktank/core";
import { InputHandlerEscape } from "./input-handler-escape.js";
import type { InputRequests, InputResponses } from "./input-required.js";
import { modernProtocolVersion } from "./protocol-versions.js";

/** Answers a tool's `input_required` round: the embedded requests in, their responses out. */
export type InputRequiredHandler = (requests: InputRequests, context: { readonly server: string; readonly tool: string; readonly round: number }) => Promise<InputResponses>;

/** A result of any shape: results are read leniently here (the manager checks tool lists one tool at a time). */
const anyResult = {
  "~standard": {
    version: 1 as const,
    vendor: "thinktank",
    validate: (value: unknown) => (typeof value === "object" && value !== null ? { value: value as Record<string, unknown> } : { issues: [{ message: "the result is not an object" }] }),
  },
};

/** Rounds of input_required one call may take before it fails. */
const maxInputRounds = 8;

/**
 * One session of the 2026-07-28 era, on `@modelcontextprotocol/client` (the v1 SDK cannot speak
 * it): a Client pinned to 2026-07-28, so connect probes with `server/discover` and never falls
 * back (ServerConnection falls back to the v1 Client itself), or adopts a remembered discover
 * result without a round trip. `input_required` results are not fulfilled by the SDK: each round
 * is handed to the caller's handler (the agent turns it into a human-in-the-loop interrupt).
 */
export class ModernSession {
  readonly client: Client;

  constructor(clientInfo: { readonly name: string; readonly version: string }) {
    this.client = new Client(
      { name: clientInfo.name, version: clientInfo.version },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: modernProtocolVersion } }, inputRequired: { autoFulfill: false } },
    );
  }

  /** Probes (or adopts `prior`) and opens the session; throws the SDK's typed errors (see probeOutcome). */
  async connect(transport: Transport, timeoutMs: number, prior?: DiscoverResult): Promise<void> {
    // The probe may take half the time: a stdio server silent on it is a 2025 one, and initialize needs the rest.
    this.client.setVersionNegotiation({ mode: { pin: modernProtocolVersion }, probe: { timeoutMs: Math.max(1, Math.floor(timeoutMs / 2)) } });
    await this.client.connect(transport, { timeout: timeoutMs, ...(prior ? { prior: { kind: "modern" as const, discover: prior } } : {}) });
  }

  get discover(): DiscoverResult | undefined {
    return this.client.getDiscoverResult();
  }

  get protocolVersion(): string | undefined {
    return this.client.getNegotiatedProtocolVersion();
  }

  get listsToolChanges(): boolean {
    return this.client.getServerCapabilities()?.tools?.listChanged === true;
  }

  /** One page of tools/list, as the server sent it (ttlMs and cacheScope included). */
  async listToolsPage(cursor: string | undefined, timeoutMs: number): Promise<Record<string, unknown>> {
    return (await this.client.request({ method: "tools/list", params: cursor === undefined ? {} : { cursor } }, anyResult, { timeout: timeoutMs })) as Record<string, unknown>;
  }

  /**
   * tools/call, round after round while the server answers `input_required`: each round's
   * requests go to `onInputRequired`, and the call is sent again with the responses and the
   * server's `requestState` as it came. Without a handler, such a call fails with
   * MCP_INPUT_REQUIRED naming what the server asked.
   */
  async callTool(
    server: string,
    name: string,
    args: Record<string, unknown>,
    options: { readonly timeoutMs: number; readonly signal?: AbortSignal; readonly onInputRequired?: InputRequiredHandler },
  ): Promise<CallToolResult> {
    let retry: { inputResponses?: InputResponses; requestState?: string } = {};
    for (let round = 0; ; round++) {
      const result = (await this.client.request({ method: "tools/call", params: { name, arguments: args, ...retry } }, anyResult, {
        timeout: options.timeoutMs,
        allowInputRequired: true,
        ...(options.signal ? { signal: options.signal } : {}),
      })) as Record<string, unknown>;
      if (result.resultType !== "input_required") return withoutServerInfo(result) as CallToolResult;
      const requests = (result.inputRequests ?? {}) as InputRequests;
      const requestState = typeof result.requestState === "string" ? result.requestState : undefined;
      if (round >= maxInputRounds) {
        throw new ThinktankError("MCP_PROTOCOL_ERROR", `MCP server '${server}' asked for input more than ${maxInputRounds} times in one call of '${name}'`, { details: { server, tool: name } });
      }
      if (!options.onInputRequired) {
        const asked = Object.values(requests)
          .map((request) => (request as { params?: { message?: unknown } }).params?.message)
          .filter((message): message is string => typeof message === "string");
        throw new ThinktankError("MCP_INPUT_REQUIRED", `MCP server '${server}' needs input to run '${name}'${asked.length ? ` (${asked.join("; ")})` : ""}, and this call has no one to ask`, {
          details: { server, tool: name },
        });
      }
      let responses: InputResponses = {};
      try {
        if (Object.keys(requests).length > 0) responses = await options.onInputRequired(requests, { server, tool: name, round });
      } catch (error) {
        throw new InputHandlerEscape(error);
      }
      retry = { ...(Object.keys(responses).length > 0 ? { inputResponses: responses } : {}), ...(requestState !== undefined ? { requestState } : {}) };
    }
  }

  readResource(params: ReadResourceRequest["params"], options: { timeoutMs: number; signal?: AbortSignal }): Promise<ReadResourceResult> {
    return this.client.request({ method: "resources/read", params }, anyResult, { timeout: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) }) as Promise<ReadResourceResult>;
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/**
 * A result without the server's identity, which the 2026-07-28 era repeats in every result's
 * `_meta` (`io.modelcontextprotocol/serverInfo`): it is known from discover, and in a tool result
 * it would reach the model as noise. Other `_meta` keys stay.
 */
function withoutServerInfo(result: Record<string, unknown>): Record<string, unknown> {
  const meta = result._meta as Record<string, unknown> | undefined;
  if (!meta || !(serverInfoKey in meta)) return result;
  const { [serverInfoKey]: _identity, ...rest } = meta;
  const { _meta: _dropped, ...withoutMeta } = result;
  return Object.keys(rest).length > 0 ? { ...withoutMeta, _meta: rest } : withoutMeta;
}

const serverInfoKey = "io.modelcontextprotocol/serverInfo";

import { SdkError, SdkErrorCode, UnsupportedProtocolVersionError, type DiscoverResult } from "@modelcontextprotocol/client";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

export { legacyProtocolVersion, modernProtocolVersion } from "./protocol-versions.js";

/**
 * What a server was found to speak, remembered across its sessions: `legacy` (initialize,
 * 2025-11-25 and earlier) skips the `server/discover` probe next time; `modern` keeps the
 * discover result, so the next session adopts it without a round trip (a stale one fails at its
 * first request, and the server is probed again).
 */
export type EraVerdict = { readonly era: "legacy" } | { readonly era: "modern"; readonly discover: DiscoverResult };

/** A server that speaks neither era: the probe found no 2026-07-28 and initialize no version we speak. */
export class ProtocolUnsupportedError extends Error {
  readonly code = "PROTOCOL_UNSUPPORTED";
  constructor(
    /** What was tried, in order: `2026-07-28 (server/discover)`, `2025-11-25 (initialize)`. */
    readonly versionsTried: readonly string[],
    /** The versions the server said it supports, when it said. */
    readonly versionsOffered: readonly string[] | undefined,
    detail: string,
  ) {
    const offered = versionsOffered?.length ? `; it offers ${versionsOffered.join(", ")}` : "";
    super(`PROTOCOL_UNSUPPORTED: the server speaks no MCP protocol version Thinktank speaks (tried ${versionsTried.join(", ")}${offered}): ${detail}`);
    this.name = "ProtocolUnsupportedError";
  }
}

/** How a probe pinned to 2026-07-28 ended without a modern session. */
export type ProbeOutcome =
  /** No modern evidence (method not found, a 2025-only answer, a stdio child that exited or stayed silent): try initialize. */
  | { readonly kind: "legacy"; readonly offered?: readonly string[]; readonly detail: string }
  /** Not about the era (refused connection, sign-in, time-out, a server error): the connect failed as such. */
  | { readonly kind: "failed"; readonly error: unknown };

/**
 * Sorts the error of a v2 Client pinned to 2026-07-28 (its connect probes with `server/discover`
 * and has no fallback). The SDK's own classifier decided what counts as legacy evidence; its
 * verdict is in the error it throws: `ERA_NEGOTIATION_FAILED` naming the pinned version that was
 * not offered, or `-32022` listing only other versions. A probe that could not be sent or was
 * answered with HTTP 401/403/5xx is a plain failure.
 */
export function probeOutcome(error: unknown): ProbeOutcome {
  if (error instanceof UnsupportedProtocolVersionError) {
    const data = (error as { data?: { supported?: unknown } }).data;
    const offered = Array.isArray(data?.supported) ? data.supported.filter((each): each is string => typeof each === "string") : undefined;
    return { kind: "legacy", ...(offered ? { offered } : {}), detail: error.message };
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed) {
    // "did not offer pinned protocol version" / "closed ... before the server offered": legacy evidence.
    if (/offered pinned protocol version|did not offer pinned protocol version|unusable reply/.test(error.message)) return { kind: "legacy", detail: error.message };
    if (typeof (error as { data?: { status?: unknown } }).data?.status === "number") return { kind: "failed", error };
    return { kind: "failed", error: error.cause ?? error };
  }
  return { kind: "failed", error };
}

/**
 * Whether initialize failed because the server wants another protocol version: a `-32022`
 * answer, a `-32602` naming the version, or the v1 Client refusing the version the server
 * answered with. Answers the versions the server offers, when it said.
 */
export function initializeVersionRefusal(error: unknown): { readonly offered?: readonly string[] } | undefined {
  if (error instanceof McpError && (error.code === -32022 || (error.code === ErrorCode.InvalidParams && /protocol version/i.test(error.message)))) {
    const supported = (error.data as { supported?: unknown } | undefined)?.supported;
    const offered = Array.isArray(supported) ? supported.filter((each): each is string => typeof each === "string") : undefined;
    return offered ? { offered } : {};
  }
  const refused = error instanceof Error ? /Server's protocol version is not supported: (\S+)/.exec(error.message) : null;
  if (refused) return { offered: [refused[1] as string] };
  // Over streamable HTTP the v1 transport reports the refusal as an HTTP 400 whose message holds the JSON-RPC body.
  const body = error instanceof Error ? /\{"jsonrpc".*\}/.exec(error.message)?.[0] : undefined;
  if (body) {
    try {
      const answer = JSON.parse(body) as { error?: { code?: unknown; data?: { supported?: unknown } } };
      if (answer.error?.code === -32022) {
        const supported = answer.error.data?.supported;
        return Array.isArray(supported) ? { offered: supported.filter((each): each is string => typeof each === "string") } : {};
      }
    } catch {
      // not the body of a refusal
    }
  }
  return undefined;
}

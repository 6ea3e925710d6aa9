import dns from "node:dns";
import { classifyAddress } from "./address-class.js";
import { formatIp, parseIp } from "./ip-address.js";
import { matchPattern, normaliseTarget, type HostPattern } from "./host-pattern.js";
import { findAllowance, type PrivateAllowance } from "./private-allowance.js";
import type { EgressResolver } from "./egress-types.js";

/** What the proxy does with a target: connect to one of `addresses` (all checked), or answer `status` with `reason`. */
export type TargetDecision =
  | { readonly ok: true; readonly host: string; readonly addresses: readonly string[]; readonly reason: string }
  | { readonly ok: false; readonly host: string; readonly status: 400 | 403 | 502; readonly reason: string; readonly proxyStatus: string; readonly address?: string };

export interface TargetCheck {
  readonly patterns: readonly HostPattern[];
  readonly allowances: readonly PrivateAllowance[];
  readonly resolve: EgressResolver;
  readonly resolveTimeoutMs: number;
}

/** Every address the system resolver finds for a name, in its order. */
export const systemResolver: EgressResolver = async (hostname) => (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * Decides whether a run may reach `rawHost:port`: the host must match a pattern of its allowlist;
 * the proxy then resolves the name itself (once: the addresses it returns are the ones the caller
 * connects to, so a second answer can never be used: no DNS rebinding) and refuses when any address
 * is not public, unless allowed_private lists it (for that port).
 */
export async function checkTarget(check: TargetCheck, rawHost: string, port: number): Promise<TargetDecision> {
  const target = normaliseTarget(rawHost);
  if (!target) return { ok: false, host: rawHost.slice(0, 255), status: 400, reason: `${JSON.stringify(rawHost.slice(0, 255))} is not a host name or IP address`, proxyStatus: "http_request_error" };
  const { host } = target;
  const shown = target.isIp && host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
  const pattern = matchPattern(check.patterns, target, port);
  if (!pattern) {
    const listed = check.patterns.map((candidate) => candidate.text).join(", ") || "none";
    const why = matchPattern(check.patterns, target, undefined) ? `port ${port} is not allowed for it` : target.isIp ? "an IP address is allowed only when listed as that address" : "it is not in this run's network allowlist";
    return { ok: false, host, status: 403, reason: `${shown} refused: ${why} (allowed: ${listed})`, proxyStatus: "http_request_denied" };
  }
  let addresses: readonly string[];
  if (target.isIp) {
    addresses = [host];
  } else {
    const resolved = await withTimeout(check.resolve(host), check.resolveTimeoutMs);
    if (!resolved.ok) return { ok: false, host, status: 502, reason: `${host} could not be resolved: ${resolved.problem}`, proxyStatus: "dns_error" };
    addresses = resolved.value;
    if (addresses.length === 0) return { ok: false, host, status: 502, reason: `${host} has no address`, proxyStatus: "dns_error" };
  }
  const checked: string[] = [];
  for (const text of addresses) {
    const address = parseIp(text);
    if (!address) return { ok: false, host, status: 502, reason: `${host} resolved to something that is not an IP address: ${JSON.stringify(text)}`, proxyStatus: "dns_error" };
    const canonical = formatIp(address);
    const verdict = classifyAddress(address);
    if (verdict.kind !== "public" && !findAllowance(check.allowances, address, port)) {
      const via = target.isIp ? "" : `${host} resolves to `;
      return { ok: false, host, status: 403, reason: `${shown} refused: ${via}${verdict.description}, which sandboxed programs may not reach unless sandbox.network.allowed_private lists it`, proxyStatus: "destination_ip_prohibited", address: canonical };
    }
    checked.push(canonical);
  }
  return { ok: true, host, addresses: checked, reason: `allowed by ${pattern.text}` };
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<{ ok: true; value: T } | { ok: false; problem: string }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ ok: false; problem: string }>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, problem: `no answer within ${ms} ms` }), ms);
  });
  try {
    return await Promise.race([promise.then((value) => ({ ok: true as const, value })), timeout]);
  } catch (error) {
    return { ok: false, problem: (error as NodeJS.ErrnoException).code ?? (error as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

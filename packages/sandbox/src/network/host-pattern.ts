/**
 * The allowlist a sandboxed program's connections are checked against: patterns `host`,
 * `host:port`, `*.domain` and `*.domain:port` (a pattern without a port means 80 and 443), compared
 * case-insensitively on normalised names. `*.domain` matches names below the domain, not the domain
 * itself. An IP address matches only a pattern that is that address, written out.
 */
import { formatIp, parseIp } from "./ip-address.js";

export interface HostPattern {
  /** A lower-case name without a trailing dot, or a canonical IP address. */
  readonly host: string;
  /** `*.host`: any name below `host`. */
  readonly wildcard: boolean;
  /** The ports it allows. */
  readonly ports: readonly number[];
  readonly isIp: boolean;
  /** The pattern as written. */
  readonly text: string;
}

/** Ports a pattern without one allows: plain HTTP and HTTPS. */
export const defaultPorts: readonly number[] = [80, 443];

const label = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/**
 * Parses one allowlist pattern. The name part must already be ASCII (punycode for IDN), with no
 * empty labels; an IPv4 address must be written as four decimal parts (127.0.0.1, not 127.1), an
 * IPv6 address in brackets. A problem in words otherwise.
 */
export function parseHostPattern(text: string): HostPattern | { problem: string } {
  const problem = (why: string): { problem: string } => ({ problem: `network pattern ${JSON.stringify(text)}: ${why} (expected host, host:port, *.domain or *.domain:port)` });
  if (typeof text !== "string" || text.length === 0 || text.length > 260) return problem("not a host pattern");
  let rest = text;
  let ports = defaultPorts;
  const bracketed = /^\[([0-9A-Fa-f:.]+)\](?::(\d{1,5}))?$/.exec(rest);
  if (bracketed) {
    const address = parseIp(bracketed[1] as string);
    if (!address || address.family !== 6) return problem("not an IPv6 address in brackets");
    if (bracketed[2] !== undefined) {
      const port = portOf(bracketed[2]);
      if (port === undefined) return problem("the port must be 1-65535");
      ports = [port];
    }
    return { host: formatIp(address), wildcard: false, ports, isIp: true, text };
  }
  const colon = rest.lastIndexOf(":");
  if (colon >= 0) {
    const port = portOf(rest.slice(colon + 1));
    if (port === undefined) return problem("the port must be 1-65535");
    ports = [port];
    rest = rest.slice(0, colon);
  }
  const wildcard = rest.startsWith("*.");
  const host = (wildcard ? rest.slice(2) : rest).toLowerCase();
  if (/^[\d.]+$/.test(host)) {
    const address = parseIp(host);
    if (!address || wildcard) return problem("an IPv4 address must be four decimal parts, without a wildcard");
    return { host: formatIp(address), wildcard: false, ports, isIp: true, text };
  }
  const labels = host.split(".");
  if (!labels.every((part) => label.test(part))) return problem("not a host name (letters, digits, - and _ in dot-separated labels; punycode for other scripts)");
  // A name whose last label is numeric would be read as an IPv4 address by URL parsers.
  if (/^(\d+|0x[0-9a-f]*)$/.test(labels.at(-1) as string)) return problem("the last label must not be a number");
  return { host, wildcard, ports, isIp: false, text };
}

function portOf(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : undefined;
}

/** A target after normalisation: a lower-case ASCII name, or a canonical IP address. */
export interface NormalisedTarget {
  readonly host: string;
  readonly isIp: boolean;
}

/**
 * Normalises the host of a request target the way a URL parser does (WHATWG): percent-decoding,
 * IDN to punycode, lower case, IPv4 in any spelling (0x7f.1, 017700000001, 2130706433) to its dotted
 * quad, IPv6 to canonical text; then drops one trailing dot. Undefined for what is not a host name
 * (empty labels, forbidden characters, a numeric last label that is not a valid IPv4 address).
 */
export function normaliseTarget(rawHost: string): NormalisedTarget | undefined {
  if (rawHost.length === 0 || rawHost.length > 300 || /[\s/\\?#@]/.test(rawHost)) return undefined;
  let hostname: string;
  // A bare IPv6 address goes into brackets, as a URL writes it.
  const forUrl = rawHost.includes(":") && !rawHost.startsWith("[") ? `[${rawHost}]` : rawHost;
  try {
    hostname = new URL(`http://${forUrl}/`).hostname;
  } catch {
    return undefined;
  }
  if (hostname.startsWith("[")) {
    const address = parseIp(hostname.slice(1, -1));
    return address ? { host: formatIp(address), isIp: true } : undefined;
  }
  const address = parseIp(hostname);
  if (address) return { host: formatIp(address), isIp: true };
  const host = hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
  const labels = host.split(".");
  if (!labels.every((part) => label.test(part))) return undefined;
  return { host, isIp: false };
}

/** The first pattern that allows the target on the port (any port: undefined), if any. */
export function matchPattern(patterns: readonly HostPattern[], target: NormalisedTarget, port: number | undefined): HostPattern | undefined {
  return patterns.find((pattern) => {
    if ((port !== undefined && !pattern.ports.includes(port)) || pattern.isIp !== target.isIp) return false;
    if (pattern.wildcard) return target.host.endsWith(`.${pattern.host}`);
    return target.host === pattern.host;
  });
}

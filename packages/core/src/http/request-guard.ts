/**
 * The Host and Origin rules both services apply before anything else (docs/architecture.md,
 * "Requests from browsers"). A web page the user visits must not drive a local service:
 * - DNS rebinding makes the browser send the attacker's name in `Host`, so a request is answered
 *   only when `Host` names the address the service listens on, a loopback name when it listens on
 *   loopback, or a name configured in `allowed_hosts`;
 * - a cross-site form or fetch POST needs no preflight, so a mutating request that carries an
 *   `Origin` must come from the service itself or from a configured origin, and one without
 *   `Origin` must not say `Sec-Fetch-Site: cross-site` / `same-site`.
 * Pure functions over headers: each app wires them into its own hook and CORS.
 */

export interface RequestGuardPolicy {
  /** The address the service listens on (config `host`). */
  readonly boundHost: string;
  /** More names accepted in `Host` (no port), e.g. the name of a reverse proxy. */
  readonly allowedHosts: readonly string[];
  /** Browser origins allowed to send mutating requests, exact `scheme://host[:port]`. */
  readonly allowedOrigins: readonly string[];
}

export interface RequestHeadersView {
  readonly host?: string | undefined;
  readonly origin?: string | undefined;
  readonly "sec-fetch-site"?: string | undefined;
}

export type GuardVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: "HOST_NOT_ALLOWED" | "ORIGIN_NOT_ALLOWED"; readonly message: string };

const allowed: GuardVerdict = { ok: true };
const loopbackNames = new Set(["localhost", "::1", "0:0:0:0:0:0:0:1"]);
const wildcardAddresses = new Set(["0.0.0.0", "::", "0:0:0:0:0:0:0:0"]);

export const mutatingMethods: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The verdict for one request: Host on every request, Origin on mutating ones. */
export function checkRequestSource(method: string, headers: RequestHeadersView, policy: RequestGuardPolicy): GuardVerdict {
  const hostVerdict = checkHost(headers.host, policy);
  if (!hostVerdict.ok || !mutatingMethods.has(method.toUpperCase())) return hostVerdict;
  return checkOrigin(headers, policy);
}

/**
 * What the Host check cannot see in the parsed headers: Node keeps the first of several `Host`
 * headers (a proxy may route by another; RFC 9112 says answer 400), and an absolute-form target
 * (`GET http://other.example/api/... HTTP/1.1`) names the host that counts, whatever `Host` says.
 * `rawHeaders` is Node's flat [name, value, ...] list, `target` the request line's target.
 */
export function checkRequestFraming(rawHeaders: readonly string[], target: string, policy: RequestGuardPolicy): GuardVerdict {
  let hosts = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) if (rawHeaders[index]?.toLowerCase() === "host") hosts += 1;
  if (hosts > 1) return { ok: false, code: "HOST_NOT_ALLOWED", message: `the request has ${hosts} Host headers; send exactly one` };
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) return allowed;
  let authority: string;
  try {
    authority = new URL(target).host;
  } catch {
    return { ok: false, code: "HOST_NOT_ALLOWED", message: "the request target is an absolute URL that cannot be read" };
  }
  return checkHost(authority, policy);
}

/** True when `Host` names this service (see the module comment). */
export function checkHost(hostHeader: string | undefined, policy: RequestGuardPolicy): GuardVerdict {
  const name = hostHeader === undefined ? undefined : hostNameOf(hostHeader);
  if (name !== undefined && isAllowedHostName(name, policy)) return allowed;
  const shown = hostHeader === undefined ? "no Host header" : `Host ${JSON.stringify(hostHeader.slice(0, 200))}`;
  return {
    ok: false,
    code: "HOST_NOT_ALLOWED",
    message: `${shown} is not a name this service answers to: use the address it listens on (${policy.boundHost}) or add the name to allowed_hosts in config.yaml`,
  };
}

function isAllowedHostName(name: string, policy: RequestGuardPolicy): boolean {
  if (policy.allowedHosts.some((host) => normaliseHostName(host) === name)) return true;
  const bound = normaliseHostName(policy.boundHost);
  if (name === bound) return true;
  if ((isLoopbackAddress(bound) || wildcardAddresses.has(bound)) && isLoopbackAddress(name)) return true;
  // Listening on every address with no names configured: any Host (start-up requires the API key there).
  return wildcardAddresses.has(bound) && policy.allowedHosts.length === 0;
}

function checkOrigin(headers: RequestHeadersView, policy: RequestGuardPolicy): GuardVerdict {
  const origin = headers.origin;
  if (origin === undefined || origin === "") {
    const site = headers["sec-fetch-site"]?.toLowerCase();
    if (site === "cross-site" || site === "same-site") {
      return { ok: false, code: "ORIGIN_NOT_ALLOWED", message: `a ${site} browser request may not change anything here; allow its origin with allowed_origins in config.yaml` };
    }
    return allowed;
  }
  const normalised = normaliseOrigin(origin);
  if (normalised !== undefined && (isOwnOrigin(normalised, headers.host) || isAllowedOrigin(normalised, policy))) return allowed;
  return {
    ok: false,
    code: "ORIGIN_NOT_ALLOWED",
    message: `origin ${JSON.stringify(origin.slice(0, 200))} may not change anything here: add it to allowed_origins in config.yaml to let a web frontend on it call this service`,
  };
}

/** True when `origin` (as a browser sends it) is one of the configured origins. For CORS too. */
export function isAllowedOrigin(origin: string, policy: Pick<RequestGuardPolicy, "allowedOrigins">): boolean {
  const normalised = normaliseOrigin(origin);
  return normalised !== undefined && policy.allowedOrigins.some((entry) => normaliseOrigin(entry) === normalised);
}

/** A page served by this very service (same scheme-less host and port as the request's Host). */
function isOwnOrigin(normalisedOrigin: string, hostHeader: string | undefined): boolean {
  if (hostHeader === undefined) return false;
  const own = normaliseOrigin(`http://${hostHeader}`);
  return own !== undefined && (normalisedOrigin === own || normalisedOrigin === own.replace(/^http:/, "https:"));
}

/** `scheme://host[:port]` in the URL standard's form (lower case, default port dropped), or undefined. */
function normaliseOrigin(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
    if (url.username !== "" || url.password !== "" || (url.pathname !== "/" && url.pathname !== "")) return undefined;
    return url.origin;
  } catch {
    return undefined; // "null" (sandboxed frames, file://) and garbage are never allowed
  }
}

/** The host name of a Host header, without port or IPv6 brackets, lower case; undefined if malformed. */
function hostNameOf(hostHeader: string): string | undefined {
  const trimmed = hostHeader.trim();
  if (trimmed === "" || /[\s/?#@\\]/.test(trimmed)) return undefined;
  try {
    return normaliseHostName(new URL(`http://${trimmed}`).hostname);
  } catch {
    return undefined;
  }
}

function normaliseHostName(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
}

/** True for a name or address of this machine's loopback: localhost, 127.0.0.0/8, ::1 (brackets allowed). */
export function isLoopbackAddress(host: string): boolean {
  const name = normaliseHostName(host);
  return loopbackNames.has(name) || /^127(\.\d{1,3}){3}$/.test(name) || /^::ffff:127(\.\d{1,3}){3}$/.test(name) || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(name);
}

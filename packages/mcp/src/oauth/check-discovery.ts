import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import { ThinktankError } from "@thinktank/core";

const endpointFields = ["authorization_endpoint", "token_endpoint", "registration_endpoint", "revocation_endpoint"] as const;

/**
 * Refuses authorization-server metadata that would send codes, secrets or tokens where they do
 * not belong (the SDK deliberately checks none of this): the metadata's `issuer` must be the
 * authorization server it was fetched for (RFC 8414 §3.3), each endpoint must be on the issuer's
 * host, and everything must be https except on loopback. Throws OAUTH_METADATA_REJECTED.
 */
export function checkDiscovery(server: string, state: OAuthDiscoveryState): void {
  const reject = (why: string): never => {
    throw new ThinktankError("OAUTH_METADATA_REJECTED", `MCP server '${server}': its authorization server metadata cannot be trusted: ${why}`, {
      details: { server, authorization_server: state.authorizationServerUrl },
    });
  };
  const authorizationServer = parse(state.authorizationServerUrl) ?? reject(`the authorization server URL ${JSON.stringify(state.authorizationServerUrl)} is not a URL`);
  if (!secureEnough(authorizationServer)) reject(`the authorization server ${authorizationServer.origin} is not https`);
  const metadata = state.authorizationServerMetadata as Readonly<Record<string, unknown>> | undefined;
  if (!metadata) return;
  const issuer = typeof metadata.issuer === "string" ? parse(metadata.issuer) : undefined;
  if (!issuer) return reject("it names no issuer");
  if (!sameIdentifier(issuer.href, authorizationServer.href)) reject(`its issuer ${issuer.href} is not the authorization server it was fetched from (${authorizationServer.href})`);
  for (const field of endpointFields) {
    const value = metadata[field];
    if (value === undefined) continue;
    const endpoint = typeof value === "string" ? parse(value) : undefined;
    if (!endpoint) return reject(`its ${field} is not a URL`);
    if (endpoint.hostname !== issuer.hostname) reject(`its ${field} is on ${endpoint.host}, another host than its issuer (${issuer.host})`);
    if (!secureEnough(endpoint)) reject(`its ${field} is not https`);
  }
}

function parse(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

function secureEnough(url: URL): boolean {
  if (url.protocol === "https:") return true;
  return url.protocol === "http:" && (url.hostname === "127.0.0.1" || url.hostname === "localhost" || url.hostname === "[::1]");
}

/** Issuer identifiers compared as URLs, one trailing slash aside. */
function sameIdentifier(a: string, b: string): boolean {
  return a.replace(/\/$/, "") === b.replace(/\/$/, "");
}

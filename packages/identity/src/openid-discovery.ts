import { ThinktankError } from "@thinktank/core";

/** A discovery document larger than this is refused (real ones are a few kilobytes). */
const maxDocumentBytes = 256 * 1024;

/**
 * The `jwks_uri` of the issuer's OpenID discovery document (`<issuer>/.well-known/openid-configuration`),
 * fetched with a timeout, no redirects and a size bound; the document must name the same issuer.
 */
export async function fetchDiscoveredJwksUrl(issuer: string, timeoutMs: number): Promise<string> {
  const url = `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
  const response = await fetch(url, { redirect: "error", signal: AbortSignal.timeout(timeoutMs), headers: { accept: "application/json" } });
  if (!response.ok) throw new ThinktankError("SERVICE_UNAVAILABLE", `OpenID discovery at ${url} answered ${response.status}`);
  const text = await boundedText(response, url);
  let document: { issuer?: unknown; jwks_uri?: unknown };
  try {
    document = JSON.parse(text) as typeof document;
  } catch {
    throw new ThinktankError("SERVICE_UNAVAILABLE", `OpenID discovery at ${url} is not JSON`);
  }
  if (document.issuer !== issuer) throw new ThinktankError("SERVICE_UNAVAILABLE", `OpenID discovery at ${url} names another issuer (${String(document.issuer)})`);
  if (typeof document.jwks_uri !== "string" || !/^https?:\/\//.test(document.jwks_uri)) throw new ThinktankError("SERVICE_UNAVAILABLE", `OpenID discovery at ${url} has no jwks_uri`);
  return document.jwks_uri;
}

async function boundedText(response: Response, url: string): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxDocumentBytes) {
      await reader.cancel();
      throw new ThinktankError("SERVICE_UNAVAILABLE", `OpenID discovery at ${url} is larger than ${maxDocumentBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

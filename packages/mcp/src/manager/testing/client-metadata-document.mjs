// The authorization server's side of client ID metadata documents: a client_id that is an https
// URL is fetched (trusting the test's CA) and taken as the client only if the document names that
// same client_id, lists its redirect URIs and asks for no secret.
import https from "node:https";

const maxBytes = 5 * 1024;

export function isMetadataDocumentUrl(clientId) {
  try {
    const url = new URL(clientId);
    return url.protocol === "https:" && url.pathname !== "/";
  } catch {
    return false;
  }
}

/** The client a metadata document describes, or undefined (an unknown client) when it cannot be used. */
export async function fetchClientMetadataDocument(clientId, { ca } = {}) {
  const document = await new Promise((resolve) => {
    const request = https.get(clientId, { ...(ca ? { ca } : {}), timeout: 5000, headers: { accept: "application/json" } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return resolve(undefined);
      }
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => {
        body += chunk;
        if (body.length > maxBytes) res.destroy();
      });
      res.on("end", () => {
        try {
          resolve(JSON.parse(body));
        } catch {
          resolve(undefined);
        }
      });
      res.on("error", () => resolve(undefined));
    });
    request.on("timeout", () => request.destroy());
    request.on("error", () => resolve(undefined));
  });
  if (!document || typeof document !== "object" || document.client_id !== clientId) return undefined;
  const redirects = document.redirect_uris;
  if (!Array.isArray(redirects) || redirects.length === 0 || !redirects.every((uri) => typeof uri === "string")) return undefined;
  if (document.client_secret !== undefined || (document.token_endpoint_auth_method ?? "none") !== "none") return undefined;
  return {
    client_id: clientId,
    client_name: typeof document.client_name === "string" ? document.client_name : undefined,
    redirect_uris: redirects,
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
}

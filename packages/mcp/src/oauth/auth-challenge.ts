import { extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";

/** What a server's 401/403 said in WWW-Authenticate (RFC 6750, RFC 9728). */
export interface AuthChallenge {
  readonly status: number;
  readonly error?: string;
  readonly scope?: string;
  readonly resourceMetadataUrl?: string;
}

export function readChallenge(response: Response): AuthChallenge {
  const { error, scope, resourceMetadataUrl } = extractWWWAuthenticateParams(response);
  return { status: response.status, ...(error ? { error } : {}), ...(scope ? { scope } : {}), ...(resourceMetadataUrl ? { resourceMetadataUrl: resourceMetadataUrl.href } : {}) };
}

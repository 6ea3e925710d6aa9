import { sdkAuth } from "./sdk-auth.js";

/** What a server's 401/403 said in WWW-Authenticate (RFC 6750, RFC 9728). */
export interface AuthChallenge {
  readonly status: number;
  readonly error?: string;
  readonly scope?: string;
  readonly resourceMetadataUrl?: string;
}

export async function readChallenge(response: Response): Promise<AuthChallenge> {
  const { extractWWWAuthenticateParams } = await sdkAuth();
  const { error, scope, resourceMetadataUrl } = extractWWWAuthenticateParams(response);
  return { status: response.status, ...(error ? { error } : {}), ...(scope ? { scope } : {}), ...(resourceMetadataUrl ? { resourceMetadataUrl: resourceMetadataUrl.href } : {}) };
}

import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { StoredTokens } from "./oauth-record.js";

/** Tokens as the store keeps them: when obtained, when they expire (from expires_in), and the issuer they are bound to. */
export function stampTokens(tokens: OAuthTokens, now: number, issuer: string | undefined): StoredTokens {
  return {
    ...tokens,
    ...(issuer !== undefined ? { issuer } : {}),
    obtained_at: now,
    ...(typeof tokens.expires_in === "number" ? { expires_at: now + tokens.expires_in * 1000 } : {}),
  };
}

import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

/** Tokens as kept: the authorization server's answer (stamped with `issuer`) plus when they were obtained and expire. */
export type StoredTokens = OAuthTokens & {
  /** Epoch ms. */
  readonly obtained_at: number;
  /** Epoch ms; absent when the server gave no `expires_in`. */
  readonly expires_at?: number;
};

/** Why a server was last found to need sign-in, for those that show it (the gateway's server list). */
export interface NeedsAuthMark {
  readonly reason: string;
  /** Epoch ms. */
  readonly since: number;
  /** The scope the server's challenge asked for. */
  readonly scope?: string;
  readonly resource_metadata_url?: string;
}

/**
 * What the token store keeps for one server (encrypted, one file per server). Bound to the
 * server's name (the file's associated data) and URL (`url`): tokens for another URL are not used.
 */
export interface OAuthRecord {
  readonly server: string;
  readonly url: string;
  readonly grant: "authorization_code" | "client_credentials";
  readonly tokens?: StoredTokens;
  /** A client registered for us (dynamic registration or a metadata-document client id); a configured client is never copied here. */
  readonly client?: OAuthClientInformationMixed;
  readonly discovery?: OAuthDiscoveryState;
  /** The RFC 8707 resource indicator sent with token requests. */
  readonly resource?: string;
  /** Epoch ms of the last interactive sign-in (or client-credentials grant): only a new one lets a server that needs sign-in try again. */
  readonly signed_in_at?: number;
  readonly needs_auth?: NeedsAuthMark;
}

/** True when `record` holds tokens for this very URL. */
export function hasTokensFor(record: OAuthRecord | undefined, url: string): record is OAuthRecord & { tokens: StoredTokens } {
  return record !== undefined && record.url === url && record.tokens !== undefined;
}

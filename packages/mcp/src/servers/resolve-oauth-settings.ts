import { expandDeep } from "@thinktank/core";
import type { McpOAuthEntry, ResolvedOAuthSettings } from "./server-entry.js";

export type OAuthSettingsResolution = { readonly ok: true; readonly settings: ResolvedOAuthSettings | undefined } | { readonly ok: false; readonly reason: string; readonly missing?: readonly string[] };

/**
 * Resolves a remote entry's `oauth` block: placeholders from `env`, both spellings of the client
 * id and callback port, scopes joined with spaces. A block that cannot work (client credentials
 * without a secret, a token_url that is not http(s)) comes back with the reason.
 */
export function resolveOAuthSettings(oauth: unknown, env: Readonly<Record<string, string | undefined>>): OAuthSettingsResolution {
  if (oauth === undefined) return { ok: true, settings: undefined };
  if (!oauth || typeof oauth !== "object" || Array.isArray(oauth)) return { ok: false, reason: "'oauth' must be an object" };
  const block = oauth as McpOAuthEntry;
  const grant = block.grant ?? "authorization_code";
  if (grant !== "authorization_code" && grant !== "client_credentials") return { ok: false, reason: `oauth.grant must be authorization_code or client_credentials (got ${JSON.stringify(grant)})` };
  const raw = {
    clientId: stringOrUndefined(block.client_id ?? block.clientId),
    clientSecret: stringOrUndefined(block.client_secret),
    scopes: Array.isArray(block.scopes) ? block.scopes.filter((scope): scope is string => typeof scope === "string").join(" ") : stringOrUndefined(block.scopes),
    tokenUrl: stringOrUndefined(block.token_url),
  };
  const { value, missing } = expandDeep(raw, env);
  if (missing.length > 0) return { ok: false, reason: "", missing };
  const port = block.callback_port ?? block.callbackPort;
  if (port !== undefined && !(Number.isInteger(port) && (port as number) >= 1 && (port as number) <= 65535)) return { ok: false, reason: `oauth.callback_port must be a port number (got ${JSON.stringify(port)})` };
  if (grant === "client_credentials" && (!value.clientId || !value.clientSecret)) return { ok: false, reason: "oauth: the client_credentials grant needs 'client_id' and 'client_secret'" };
  if (value.tokenUrl !== undefined && !/^https?:\/\//i.test(value.tokenUrl)) return { ok: false, reason: "oauth.token_url must be an http(s) URL" };
  const settings: ResolvedOAuthSettings = {
    grant,
    ...(value.clientId ? { clientId: value.clientId } : {}),
    ...(value.clientSecret ? { clientSecret: value.clientSecret } : {}),
    ...(value.scopes?.trim() ? { scopes: value.scopes.trim() } : {}),
    ...(value.tokenUrl ? { tokenUrl: value.tokenUrl } : {}),
    ...(port !== undefined ? { callbackPort: port as number } : {}),
  };
  return { ok: true, settings };
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

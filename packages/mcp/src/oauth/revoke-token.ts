import type { OAuthClientInformationMixed } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { sdkAuth } from "./sdk-auth.js";

/**
 * RFC 7009 token revocation (the SDK has the server side only). The client authenticates the way
 * the SDK does at the token endpoint. Throws when the server answers anything but 200.
 */
export async function revokeToken(options: {
  readonly endpoint: string;
  readonly token: string;
  readonly tokenTypeHint: "access_token" | "refresh_token";
  readonly client: OAuthClientInformationMixed;
  readonly authMethods: readonly string[];
  readonly fetch: FetchLike;
}): Promise<void> {
  const body = new URLSearchParams({ token: options.token, token_type_hint: options.tokenTypeHint });
  const headers = new Headers({ "content-type": "application/x-www-form-urlencoded", accept: "application/json" });
  const { client_id: id, client_secret: secret } = options.client;
  const { selectClientAuthMethod } = await sdkAuth();
  const method = selectClientAuthMethod(options.client, [...options.authMethods]);
  if (method === "client_secret_basic" && secret) headers.set("authorization", `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`);
  else {
    body.set("client_id", id);
    if (secret) body.set("client_secret", secret);
  }
  const response = await options.fetch(options.endpoint, { method: "POST", headers, body, redirect: "manual" });
  await response.body?.cancel().catch(() => undefined);
  if (response.status !== 200) throw new Error(`the revocation endpoint answered HTTP ${response.status}`);
}

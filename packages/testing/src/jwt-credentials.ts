import crypto from "node:crypto";
import type { OpenIdProvider } from "./openid-provider.js";

/** Who a credential turns out to be: a user, an administrator, or refused outright. */
export type CredentialHolder = "anonymous" | "user" | "admin" | "invalid";

/** A named set of request headers and who they should make the caller: one row of an access matrix. */
export interface TestCredential {
  readonly name: string;
  readonly headers: Record<string, string>;
  readonly holder: CredentialHolder;
}

const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString("base64url");
const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/**
 * The bearer JWTs an access matrix tries against a service whose `auth.jwt` names `provider` and
 * `audience`: real tokens from the provider for a user (`subject`) and an administrator (role
 * `admin`), and the hostile ones every verifier must refuse: expired, another audience, another
 * issuer, `alg: none`, and HS256 signed with the provider's public key (key confusion).
 */
export async function jwtCredentials(provider: OpenIdProvider, options: { audience: string; subject: string }): Promise<TestCredential[]> {
  const { audience, subject } = options;
  const now = Math.floor(Date.now() / 1000);
  const claims = (extra: Record<string, unknown> = {}) => ({ iss: provider.issuer, aud: audience, sub: subject, iat: now, exp: now + 600, ...extra });
  const { pem, jwk } = provider.publicKey();
  const hsInput = `${encode({ alg: "HS256", typ: "JWT", kid: jwk.kid })}.${encode(claims({ role: "admin" }))}`;
  return [
    { name: `${subject}'s JWT`, headers: bearer(await provider.token({ subject, audience, name: subject, role: "member" })), holder: "user" },
    { name: "an administrator's JWT", headers: bearer(await provider.token({ subject: "boss", audience, role: "admin" })), holder: "admin" },
    { name: "an expired JWT", headers: bearer(provider.sign(claims({ iat: now - 7200, exp: now - 3600 }))), holder: "invalid" },
    { name: "a JWT for another audience", headers: bearer(await provider.token({ subject, audience: "https://elsewhere.test" })), holder: "invalid" },
    { name: "a JWT from another issuer", headers: bearer(provider.sign(claims({ iss: "http://127.0.0.1:1" }))), holder: "invalid" },
    { name: "a JWT with alg none", headers: bearer(`${encode({ alg: "none", typ: "JWT" })}.${encode(claims({ role: "admin" }))}.`), holder: "invalid" },
    { name: "an HS256 JWT signed with the provider's public key", headers: bearer(`${hsInput}.${crypto.createHmac("sha256", pem).update(hsInput).digest("base64url")}`), holder: "invalid" },
  ];
}

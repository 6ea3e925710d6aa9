import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/** A real OpenID provider (`oidc-provider`, a certified implementation) on 127.0.0.1 for tests. */
export interface OpenIdProvider {
  /** `http://127.0.0.1:<port>`: the `iss` of its tokens and where discovery is. */
  readonly issuer: string;
  /** Its JWKS (the public keys it publishes now). */
  readonly jwksUrl: string;
  /** `<issuer>/.well-known/openid-configuration`. */
  readonly discoveryUrl: string;
  /** How many times each was fetched: the JWKS, the discovery document. */
  readonly fetches: { readonly jwks: number; readonly discovery: number };
  /**
   * A signed JWT access token from its token endpoint (client_credentials with a resource
   * indicator): `sub` is `subject`, `aud` the `audience`, plus `name` and `role` when given.
   */
  token(options: { subject: string; audience: string; name?: string; role?: string | string[]; expiresInSeconds?: number }): Promise<string>;
  /**
   * A JWT with any payload signed by its current key (RS256, its `kid`), for hostile cases a real
   * token endpoint never issues: another issuer, no expiry, a tampered claim.
   */
  sign(payload: Record<string, unknown>, header?: Record<string, unknown>): string;
  /** The public half of its current signing key, as a JWK (`kid`, `alg` included), and as PEM. */
  publicKey(): { jwk: crypto.JsonWebKey; pem: string };
  /** A new signing key from now on; the old ones stay published (until `retireOldKeys`). */
  rotateKey(): Promise<void>;
  /** Stops publishing every key but the current one: tokens they signed stop verifying once a verifier refetches. */
  retireOldKeys(): Promise<void>;
  stop(): Promise<void>;
}

interface SigningKey {
  readonly kid: string;
  readonly privateKey: crypto.KeyObject;
  readonly publicKey: crypto.KeyObject;
}

type ProviderInstance = { callback(): (request: http.IncomingMessage, response: http.ServerResponse) => void };
type ProviderClass = new (issuer: string, configuration: Record<string, unknown>) => ProviderInstance;

const clientSecret = "thinktank-test-client-secret";

/**
 * Starts oidc-provider on a free port of 127.0.0.1 with signing keys of its own. Each `token()`
 * subject is a client of its own (client_credentials: the token's `sub` is the client id), the
 * audience a resource indicator whose tokens are JWTs. `rotateKey` and `retireOldKeys` build the provider again
 * with the new key first (the one it signs with) on the same port, so discovery, JWKS and token
 * endpoints stay where they are. oidc-provider warns about Node versions it does not list: harmless.
 */
export async function startOpenIdProvider(): Promise<OpenIdProvider> {
  // oidc-provider ships no types: imported by a name TypeScript does not resolve, described by ProviderClass.
  const moduleName = "oidc-provider";
  const { default: Provider } = (await import(moduleName)) as { default: ProviderClass };
  const storage = new Map<string, Record<string, unknown>>();
  const people = new Map<string, { name?: string; role?: string | string[]; ttl: number }>();
  let keys: SigningKey[] = [newKey()];
  let handler: ReturnType<ProviderInstance["callback"]> | undefined;
  const fetches = { jwks: 0, discovery: 0 };

  const server = http.createServer((request, response) => {
    const path = (request.url ?? "").split("?")[0];
    if (path === "/jwks") fetches.jwks++;
    if (path === "/.well-known/openid-configuration") fetches.discovery++;
    handler?.(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const build = () => {
    const provider = new Provider(issuer, {
      adapter: (model: string) => memoryAdapter(storage, model),
      jwks: { keys: keys.map((key) => ({ ...key.privateKey.export({ format: "jwk" }), kid: key.kid, alg: "RS256", use: "sig" })) },
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string) => oneOf,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: unknown, resource: string, client: { clientId: string }) => ({
            scope: "api",
            audience: resource,
            accessTokenFormat: "jwt",
            accessTokenTTL: people.get(client.clientId)?.ttl ?? 600,
            jwt: { sign: { alg: "RS256" } },
          }),
        },
      },
      ttl: { ClientCredentials: (_ctx: unknown, token: { resourceServer?: { accessTokenTTL?: number } }) => token.resourceServer?.accessTokenTTL ?? 600 },
      extraTokenClaims: (_ctx: unknown, token: { clientId?: string }) => {
        const person = token.clientId ? people.get(token.clientId) : undefined;
        return { ...(person?.name !== undefined ? { name: person.name } : {}), ...(person?.role !== undefined ? { role: person.role } : {}) };
      },
    });
    handler = provider.callback();
  };
  build();

  const current = () => keys[0] as SigningKey;
  return {
    issuer,
    jwksUrl: `${issuer}/jwks`,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    fetches,
    async token({ subject, audience, name, role, expiresInSeconds }) {
      people.set(subject, { name, role, ttl: expiresInSeconds ?? 600 });
      storage.set(`Client:${subject}`, {
        client_id: subject,
        client_secret: clientSecret,
        grant_types: ["client_credentials"],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: "client_secret_post",
      });
      const body = new URLSearchParams({ grant_type: "client_credentials", client_id: subject, client_secret: clientSecret, resource: audience, scope: "api" });
      const response = await fetch(`${issuer}/token`, { method: "POST", body });
      const answer = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!response.ok || !answer.access_token) throw new Error(`the OpenID provider refused a token: ${answer.error ?? response.status} ${answer.error_description ?? ""}`);
      return answer.access_token;
    },
    sign(payload, header = {}) {
      const key = current();
      const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
      const input = `${encode({ alg: "RS256", typ: "JWT", kid: key.kid, ...header })}.${encode(payload)}`;
      return `${input}.${crypto.sign("sha256", Buffer.from(input), key.privateKey).toString("base64url")}`;
    },
    publicKey() {
      const key = current();
      return { jwk: { ...key.publicKey.export({ format: "jwk" }), kid: key.kid, alg: "RS256", use: "sig" }, pem: key.publicKey.export({ format: "pem", type: "spki" }).toString() };
    },
    async rotateKey() {
      keys = [newKey(), ...keys];
      build();
    },
    async retireOldKeys() {
      keys = [current()];
      build();
    },
    async stop() {
      handler = undefined;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function newKey(): SigningKey {
  const { privateKey, publicKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
  return { kid: crypto.randomBytes(8).toString("hex"), privateKey, publicKey };
}

/** oidc-provider's storage contract over one Map the provider's rebuilds share (clients, grants, tokens). */
function memoryAdapter(storage: Map<string, Record<string, unknown>>, model: string) {
  const key = (id: string) => `${model}:${id}`;
  return {
    upsert: async (id: string, payload: Record<string, unknown>) => void storage.set(key(id), payload),
    find: async (id: string) => storage.get(key(id)),
    findByUid: async (uid: string) => [...storage.entries()].find(([name, payload]) => name.startsWith(`${model}:`) && payload.uid === uid)?.[1],
    findByUserCode: async (code: string) => [...storage.entries()].find(([name, payload]) => name.startsWith(`${model}:`) && payload.userCode === code)?.[1],
    consume: async (id: string) => {
      const payload = storage.get(key(id));
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    },
    destroy: async (id: string) => void storage.delete(key(id)),
    revokeByGrantId: async (grantId: string) => {
      for (const [name, payload] of storage) if (payload.grantId === grantId) storage.delete(name);
    },
  };
}

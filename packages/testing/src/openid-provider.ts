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
  /**
   * Registers a client for the authorization code flow (PKCE S256 required, as for every client
   * here): `clientSecret` makes it confidential (client_secret_post), else public. A sign-in goes
   * through the provider's own page at `/interaction/<uid>`: one `<form method="post">` with a
   * `subject` field; posting it signs that subject in and grants the scopes asked for (login and
   * consent in one step), and the provider redirects on to the client's redirect URI.
   */
  addCodeClient(client: { clientId: string; clientSecret?: string; redirectUris: readonly string[] }): void;
  /** Who a subject is when they sign in through the form: `name` and `role` claims of their id token (scope profile). */
  setPerson(subject: string, claims: { name?: string; role?: string | string[] }): void;
  stop(): Promise<void>;
}

interface SigningKey {
  readonly kid: string;
  readonly privateKey: crypto.KeyObject;
  readonly publicKey: crypto.KeyObject;
}

type ProviderInstance = {
  callback(): (request: http.IncomingMessage, response: http.ServerResponse) => void;
  interactionDetails(request: http.IncomingMessage, response: http.ServerResponse): Promise<{ uid: string; params: Record<string, unknown>; prompt: { name: string } }>;
  interactionFinished(request: http.IncomingMessage, response: http.ServerResponse, result: Record<string, unknown>, options?: Record<string, unknown>): Promise<void>;
  Grant: new (options: { accountId: string; clientId: string }) => { addOIDCScope(scope: string): void; save(): Promise<string> };
};
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
    const path = (request.url ?? "").split("?")[0] ?? "";
    if (path === "/jwks") fetches.jwks++;
    if (path === "/.well-known/openid-configuration") fetches.discovery++;
    if (path.startsWith("/interaction/")) return void interaction(request, response).catch((error: unknown) => {
      response.writeHead(400, { "content-type": "text/plain" }).end(String(error));
    });
    handler?.(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  let provider: ProviderInstance | undefined;
  /** The sign-in page of a pending authorization, and its form's post (login and consent in one step). */
  const interaction = async (request: http.IncomingMessage, response: http.ServerResponse): Promise<void> => {
    if (!provider) throw new Error("the provider is stopped");
    const details = await provider.interactionDetails(request, response);
    if (request.method === "GET") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(`<!doctype html><title>Sign in</title><form method="post" action="/interaction/${details.uid}"><label>Subject <input name="subject"></label><button type="submit">Sign in and allow</button></form>`);
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const subject = new URLSearchParams(Buffer.concat(chunks).toString("utf8")).get("subject") ?? "";
    if (subject === "") throw new Error("no subject");
    const grant = new provider.Grant({ accountId: subject, clientId: String(details.params.client_id) });
    grant.addOIDCScope(String(details.params.scope ?? "openid"));
    const grantId = await grant.save();
    await provider.interactionFinished(request, response, { login: { accountId: subject }, consent: { grantId } }, { mergeWithLastSubmission: false });
  };

  const build = () => {
    provider = new Provider(issuer, {
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
      // The authorization code flow (addCodeClient): PKCE for every client, the person's claims in the id token.
      pkce: { required: () => true },
      interactions: { url: (_ctx: unknown, pending: { uid: string }) => `/interaction/${pending.uid}` },
      claims: { openid: ["sub"], profile: ["name", "role"], email: ["email"] },
      conformIdTokenClaims: false,
      findAccount: (_ctx: unknown, subject: string) => ({
        accountId: subject,
        claims: () => {
          const person = people.get(subject);
          return { sub: subject, ...(person?.name !== undefined ? { name: person.name } : {}), ...(person?.role !== undefined ? { role: person.role } : {}) };
        },
      }),
      ttl: { ClientCredentials: (_ctx: unknown, token: { resourceServer?: { accessTokenTTL?: number } }) => token.resourceServer?.accessTokenTTL ?? 600 },
      extraTokenClaims: (_ctx: unknown, token: { clientId?: string }) => {
        const person = token.clientId ? people.get(token.clientId) : undefined;
        return { ...(person?.name !== undefined ? { name: person.name } : {}), ...(person?.role !== undefined ? { role: person.role } : {}) };
      },
    });
    handler = (provider as ProviderInstance).callback();
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
    addCodeClient({ clientId, clientSecret: secret, redirectUris }) {
      storage.set(`Client:${clientId}`, {
        client_id: clientId,
        ...(secret === undefined ? { token_endpoint_auth_method: "none" } : { client_secret: secret, token_endpoint_auth_method: "client_secret_post" }),
        grant_types: ["authorization_code"],
        response_types: ["code"],
        redirect_uris: [...redirectUris],
      });
    },
    setPerson(subject, claims) {
      people.set(subject, { ...claims, ttl: people.get(subject)?.ttl ?? 600 });
    },
    async stop() {
      handler = undefined;
      provider = undefined;
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

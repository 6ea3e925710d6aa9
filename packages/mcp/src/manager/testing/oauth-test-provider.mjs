// An in-memory OAuth 2.1 authorization server for tests, as the MCP SDK's OAuthServerProvider:
// a consent page with Approve / Deny links, one-time codes bound to client, redirect URI and PKCE
// challenge, short-lived access tokens, rotating refresh tokens with reuse detection (a spent
// refresh token presented again revokes its whole family, as real servers do), revocation.
import crypto from "node:crypto";
import { InvalidGrantError, InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { fetchClientMetadataDocument, isMetadataDocumentUrl } from "./client-metadata-document.mjs";

const randomToken = (prefix) => `${prefix}_${crypto.randomBytes(24).toString("base64url")}`;

export class TestAuthProvider {
  constructor(options) {
    this.options = options;
    this.clients = new Map();
    this.requests = new Map();
    this.codes = new Map();
    this.accessTokens = new Map();
    this.refreshTokens = new Map();
    this.issued = [];
    this.stats = { registrations: 0, metadataDocumentFetches: 0, codeExchanges: 0, refreshes: 0, refreshReuses: 0, revocations: 0, clientCredentials: 0, rejectedTokens: 0 };
    const clients = this.clients;
    const stats = this.stats;
    this.clientsStore = {
      getClient: async (id) => {
        if (clients.has(id) || !options.clientMetadataDocuments || !isMetadataDocumentUrl(id)) return clients.get(id);
        // A client ID metadata document, fetched on every use (no cache: a test may change it).
        stats.metadataDocumentFetches += 1;
        return fetchClientMetadataDocument(id, options.clientMetadataDocuments);
      },
      ...(options.dynamicRegistration === false
        ? {}
        : {
            registerClient: async (client) => {
              stats.registrations += 1;
              clients.set(client.client_id, client);
              return client;
            },
          }),
    };
  }

  addClient(client) {
    this.clients.set(client.client_id, client);
  }

  async authorize(client, params, res) {
    const id = crypto.randomUUID();
    this.requests.set(id, { client, params });
    res
      .status(200)
      .type("html")
      .send(`<!doctype html><title>Sign in</title><h1>Allow ${escapeHtml(client.client_name ?? client.client_id)}?</h1><a id="approve" href="/consent?request=${id}&answer=approve">Approve</a> <a id="deny" href="/consent?request=${id}&answer=deny">Deny</a>`);
  }

  /** The consent page's answer: a redirect back to the client with a code (or an error) and the state. */
  consent(requestId, approve, account) {
    const request = this.requests.get(requestId);
    if (!request) return undefined;
    this.requests.delete(requestId);
    const target = new URL(request.params.redirectUri);
    if (request.params.state !== undefined) target.searchParams.set("state", request.params.state);
    target.searchParams.set("iss", this.options.issuer);
    if (!approve) {
      target.searchParams.set("error", "access_denied");
      return target.href;
    }
    const code = randomToken("code");
    this.codes.set(code, { clientId: request.client.client_id, params: request.params, account, used: false });
    target.searchParams.set("code", code);
    return target.href;
  }

  async challengeForAuthorizationCode(_client, code) {
    const grant = this.codes.get(code);
    if (!grant) throw new InvalidGrantError("unknown authorization code");
    return grant.params.codeChallenge;
  }

  async exchangeAuthorizationCode(client, code, _verifier, redirectUri, resource) {
    const grant = this.codes.get(code);
    if (!grant || grant.clientId !== client.client_id) throw new InvalidGrantError("unknown authorization code");
    if (grant.used) throw new InvalidGrantError("authorization code already used");
    if (redirectUri !== undefined && redirectUri !== grant.params.redirectUri) throw new InvalidGrantError("redirect_uri does not match");
    grant.used = true;
    this.stats.codeExchanges += 1;
    return this.issue(client.client_id, grant.params.scopes ?? [], resource?.href ?? grant.params.resource?.href, crypto.randomUUID(), true, grant.account);
  }

  async exchangeRefreshToken(client, refreshToken, _scopes, resource) {
    const record = this.refreshTokens.get(refreshToken);
    if (!record || record.clientId !== client.client_id || record.revoked) throw new InvalidGrantError("refresh token is not valid");
    if (record.spent) {
      this.stats.refreshReuses += 1;
      this.revokeFamily(record.family);
      throw new InvalidGrantError("refresh token was already used");
    }
    record.spent = true;
    this.stats.refreshes += 1;
    return this.issue(client.client_id, record.scopes, resource?.href ?? record.resource, record.family, true, record.account);
  }

  /** client_credentials (the SDK's token handler leaves this grant to the application). */
  clientCredentials(clientId, scopes, resource) {
    this.stats.clientCredentials += 1;
    return this.issue(clientId, scopes, resource, crypto.randomUUID(), false);
  }

  async verifyAccessToken(token) {
    const record = this.accessTokens.get(token);
    if (!record || record.revoked || record.expiresAt * 1000 < Date.now()) {
      this.stats.rejectedTokens += 1;
      throw new InvalidTokenError("the access token is not valid");
    }
    return { token, clientId: record.clientId, scopes: record.scopes, expiresAt: record.expiresAt, ...(record.resource ? { resource: new URL(record.resource) } : {}), ...(record.account ? { extra: { account: record.account } } : {}) };
  }

  async revokeToken(_client, request) {
    this.stats.revocations += 1;
    const record = this.accessTokens.get(request.token) ?? this.refreshTokens.get(request.token);
    if (record) record.revoked = true;
  }

  revokeFamily(family) {
    for (const record of [...this.accessTokens.values(), ...this.refreshTokens.values()]) if (record.family === family) record.revoked = true;
  }

  /** `account`: who approved on the consent page (the test's end user), carried by every token of the grant. */
  issue(clientId, scopes, resource, family, withRefresh, account) {
    const ttl = this.options.accessTokenTtlSeconds;
    const accessToken = randomToken("at");
    this.accessTokens.set(accessToken, { clientId, scopes, resource, family, account, expiresAt: Math.floor(Date.now() / 1000) + ttl, revoked: false });
    this.issued.push(accessToken);
    const tokens = { access_token: accessToken, token_type: "bearer", expires_in: ttl, scope: scopes.join(" ") };
    if (!withRefresh) return tokens;
    const refreshToken = randomToken("rt");
    this.refreshTokens.set(refreshToken, { clientId, scopes, resource, family, account, spent: false, revoked: false });
    this.issued.push(refreshToken);
    return { ...tokens, refresh_token: refreshToken };
  }
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

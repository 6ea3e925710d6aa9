import { createLogger, loadConfig, type Config } from "@thinktank/core";
import { openIdentity, type Identity } from "@thinktank/identity";
import { freePort, makeTempDir, startOpenIdProvider, writeTree, type OpenIdProvider } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGatewayDeps } from "../src/gateway-deps.js";
import { startGateway, type RunningGateway } from "../src/start-gateway.js";

// The console's OpenID sign-in against a real provider (oidc-provider), without a browser: redirects
// followed by hand with a cookie jar, the provider's sign-in form submitted (docs/console.md, "Sign-in and sessions").

const clientId = "thinktank-console";
const clientSecret = "console-client-secret-for-tests";
let provider: OpenIdProvider;
let gateway: RunningGateway;
let identity: Identity;
let config: Config;
let temp: ReturnType<typeof makeTempDir>;
/** Added to the gateway identity's clock (sessions and pending sign-ins), never to the provider's. */
let offsetMs = 0;

beforeAll(async () => {
  provider = await startOpenIdProvider();
  const port = await freePort();
  const callback = `http://127.0.0.1:${port}/api/session/oidc/callback`;
  provider.addCodeClient({ clientId, clientSecret, redirectUris: [callback] });
  provider.addCodeClient({ clientId: "other-app", clientSecret: "other-secret", redirectUris: [callback] });
  provider.setPerson("alice", { name: "Alice", role: "admin" });
  provider.setPerson("bob", { name: "Bob" });
  temp = makeTempDir("tt-console-oidc-");
  writeTree(temp.dir, {
    "config.yaml": [
      "log:",
      "  level: silent",
      "auth:",
      "  jwt:",
      `    issuer: ${provider.issuer}`,
      "    audience: thinktank-api",
      "console:",
      "  oidc:",
      `    client_id: ${clientId}`,
      "    client_secret_env: CONSOLE_OIDC_SECRET",
      "",
    ].join("\n"),
    "extensions_config.json": '{"mcpServers": {}, "skills": {}, "plugins": {}, "tools": {}}\n',
  });
  config = loadConfig({ cwd: temp.dir, env: { GATEWAY_PORT: String(port), THINKTANK_API_KEY: "oidc-test-operator-key-0123456789", CONSOLE_OIDC_SECRET: clientSecret } });
  identity = await openIdentity(config, { clock: () => new Date(Date.now() + offsetMs), consoleSignIn: true });
  gateway = await startGateway(config, createGatewayDeps(config, { logger: createLogger({ level: "silent" }), identity }));
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await identity?.close();
  await provider?.stop();
  temp?.cleanup();
});

/** Cookies by host (path and expiry kept simple: a Max-Age=0 removes). */
class CookieJar {
  readonly #byHost = new Map<string, Map<string, string>>();
  store(url: string, response: Response): void {
    const host = new URL(url).host;
    const jar = this.#byHost.get(host) ?? new Map<string, string>();
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const index = pair.indexOf("=");
      const name = pair.slice(0, index).trim();
      if (/max-age=0/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(name);
      else jar.set(name, pair.slice(index + 1).trim());
    }
    this.#byHost.set(host, jar);
  }
  header(url: string): string {
    return [...(this.#byHost.get(new URL(url).host) ?? new Map<string, string>())].map(([name, value]) => `${name}=${value}`).join("; ");
  }
  get(url: string, name: string): string | undefined {
    return this.#byHost.get(new URL(url).host)?.get(name);
  }
  set(url: string, name: string, value: string): void {
    const host = new URL(url).host;
    this.#byHost.set(host, new Map([...(this.#byHost.get(host) ?? []), [name, value]]));
  }
}

async function request(jar: CookieJar, url: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(url, { ...init, redirect: "manual", headers: { ...(init.headers as Record<string, string>), cookie: jar.header(url) } });
  jar.store(url, response);
  return response;
}

const locationOf = (response: Response, base: string): string => new URL(response.headers.get("location") ?? "", base).href;

/** Start at the gateway, through the provider's sign-in form as `subject`, up to the provider's redirect to the callback (not followed). */
async function toCallback(jar: CookieJar, subject: string, tamper: (authorizationUrl: URL) => URL = (url) => url): Promise<string> {
  const start = await request(jar, `${gateway.url}/api/session/oidc/start`);
  expect(start.status).toBe(302);
  expect(start.headers.get("set-cookie")).toMatch(/^thinktank_oidc=[A-Za-z0-9_-]{43}; Path=\/api\/session\/oidc; HttpOnly; SameSite=Lax; Max-Age=600$/);
  const authorization = tamper(new URL(locationOf(start, gateway.url)));
  expect(authorization.origin).toBe(provider.issuer);
  return throughProvider(jar, authorization.href, subject);
}

/** From an authorization URL at the provider to where it sends the browser back. */
async function throughProvider(jar: CookieJar, authorizationUrl: string, subject: string): Promise<string> {
  let url = authorizationUrl;
  for (let hop = 0; hop < 10; hop++) {
    if (!url.startsWith(provider.issuer)) return url;
    const response = await request(jar, url);
    if (response.status === 200) {
      const form = /<form method="post" action="([^"]+)"/.exec(await response.text());
      expect(form, "the provider's sign-in form").not.toBeNull();
      const posted = await request(jar, new URL(form?.[1] ?? "", url).href, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ subject }).toString() });
      url = locationOf(posted, url);
      continue;
    }
    expect([302, 303], await response.clone().text()).toContain(response.status);
    url = locationOf(response, url);
  }
  throw new Error("too many redirects at the provider");
}

async function finish(jar: CookieJar, callbackUrl: string): Promise<{ location: string; cookie?: string }> {
  const response = await request(jar, callbackUrl);
  expect(response.status).toBe(302);
  const session = jar.get(gateway.url, "thinktank_session");
  return { location: response.headers.get("location") ?? "", ...(session ? { cookie: `thinktank_session=${session}` } : {}) };
}

async function sessionOf(cookie: string): Promise<Record<string, unknown>> {
  return (await (await fetch(`${gateway.url}/api/session`, { headers: { cookie } })).json()) as Record<string, unknown>;
}

const failed = { location: "/?signin_error=OIDC_SIGN_IN_FAILED" };

describe("OpenID sign-in to the console", { timeout: 40_000 }, () => {
  it("signs in through the provider (code + PKCE S256, state, nonce): the id token's claims mapped as auth.jwt maps them", async () => {
    expect(await (await fetch(`${gateway.url}/api/session`)).json()).toEqual({ signedIn: false, methods: ["api_key", "oidc"], oidcIssuer: provider.issuer });
    const jar = new CookieJar();
    let authorization: URL | undefined;
    const callback = await toCallback(jar, "alice", (url) => (authorization = url));
    expect(authorization?.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorization?.searchParams.get("state")).toMatch(/.{20,}/);
    expect(authorization?.searchParams.get("nonce")).toMatch(/.{20,}/);
    expect(authorization?.searchParams.get("redirect_uri")).toBe(`${gateway.url}/api/session/oidc/callback`);
    const done = await finish(jar, callback);
    expect(done.location).toBe("/");
    const session = await sessionOf(done.cookie as string);
    expect(session).toMatchObject({ signedIn: true, method: "oidc", user: { id: "jwt:alice", name: "Alice", role: "admin" } });
    expect(jar.get(gateway.url, "thinktank_oidc")).toBeUndefined();

    // The session acts: an admin route with the CSRF token; without it, or from another origin, refused.
    const headers = { cookie: done.cookie as string, "content-type": "application/json" };
    const noToken = await fetch(`${gateway.url}/api/users`, { method: "POST", headers, body: JSON.stringify({ name: "x", role: "user" }) });
    expect(noToken.status).toBe(403);
    expect(((await noToken.json()) as { code: string }).code).toBe("CSRF_FAILED");
    const crossSite = await fetch(`${gateway.url}/api/users`, { method: "POST", headers: { ...headers, "x-csrf-token": session.csrfToken as string, origin: "https://evil.example" }, body: JSON.stringify({ name: "x", role: "user" }) });
    expect(((await crossSite.json()) as { code: string }).code).toBe("ORIGIN_NOT_ALLOWED");
    const made = await fetch(`${gateway.url}/api/users`, { method: "POST", headers: { ...headers, "x-csrf-token": session.csrfToken as string, origin: gateway.url }, body: JSON.stringify({ name: "x", role: "user" }) });
    expect(made.status).toBe(201);

    // A user without an admin role is a user.
    const bobJar = new CookieJar();
    const bob = await finish(bobJar, await toCallback(bobJar, "bob"));
    expect(await sessionOf(bob.cookie as string)).toMatchObject({ method: "oidc", user: { id: "jwt:bob", name: "Bob", role: "user" } });

    const audit = (await (await fetch(`${gateway.url}/api/audit?action=session.sign_in`, { headers: { "x-api-key": "oidc-test-operator-key-0123456789" } })).json()) as { entries: { outcome: string; actor?: { id: string } }[] };
    expect(audit.entries.slice(0, 2).map((entry) => entry.actor?.id)).toEqual(["jwt:bob", "jwt:alice"]);
  });

  it("refuses a wrong state, a replayed callback and a callback in a browser that did not start the sign-in", async () => {
    const jar = new CookieJar();
    const callback = await toCallback(jar, "alice");
    const wrongState = new URL(callback);
    wrongState.searchParams.set("state", "forged-state");
    expect(await finish(jar, wrongState.href)).toEqual(failed);

    // Login CSRF: the victim's browser lands on the attacker's callback URL without the sign-in's cookie.
    const attackerJar = new CookieJar();
    const attackers = await toCallback(attackerJar, "bob");
    expect(await finish(new CookieJar(), attackers)).toEqual(failed);

    // The genuine one works once; the same callback again (its cookie put back) is refused.
    const good = new CookieJar();
    const goodCallback = await toCallback(good, "alice");
    const browserToken = good.get(gateway.url, "thinktank_oidc") as string;
    expect((await finish(good, goodCallback)).location).toBe("/");
    const replay = new CookieJar();
    replay.set(gateway.url, "thinktank_oidc", browserToken);
    expect(await finish(replay, goodCallback)).toEqual(failed);
  });

  it("refuses a replayed code, a code made for another PKCE challenge, a request without PKCE, and a code issued to another client", async () => {
    // A used code under a fresh, valid sign-in of the same browser.
    const first = new CookieJar();
    const used = new URL(await toCallback(first, "alice"));
    expect((await finish(first, used.href)).location).toBe("/");
    const second = new CookieJar();
    const fresh = new URL(await toCallback(second, "alice"));
    fresh.searchParams.set("code", used.searchParams.get("code") as string);
    expect(await finish(second, fresh.href)).toEqual(failed);

    // Code injection: the attacker's code (their own challenge, verifier unknown to us) under the victim's state.
    const victim = new CookieJar();
    const victimCallback = new URL(await toCallback(victim, "alice"));
    const attacker = new CookieJar();
    const attackerCallback = new URL(await toCallback(attacker, "bob"));
    victimCallback.searchParams.set("code", attackerCallback.searchParams.get("code") as string);
    expect(await finish(victim, victimCallback.href)).toEqual(failed);

    // The authorization request stripped of its challenge: the provider refuses it, and so does the callback.
    const stripped = new CookieJar();
    const noPkce = await toCallback(stripped, "alice", (url) => {
      url.searchParams.delete("code_challenge");
      url.searchParams.delete("code_challenge_method");
      return url;
    });
    expect(new URL(noPkce).searchParams.get("error")).toBe("invalid_request");
    expect(await finish(stripped, noPkce)).toEqual(failed);

    // A code (and id token) issued to another client of the same provider, injected under a valid state.
    const mine = new CookieJar();
    const myCallback = new URL(await toCallback(mine, "alice"));
    const otherJar = new CookieJar();
    const otherAuthorization = new URL(`${provider.issuer}/auth`);
    for (const [name, value] of Object.entries({ client_id: "other-app", redirect_uri: `${gateway.url}/api/session/oidc/callback`, response_type: "code", scope: "openid profile", state: "other", nonce: "n", code_challenge: "A".repeat(43), code_challenge_method: "S256" })) {
      otherAuthorization.searchParams.set(name, value);
    }
    const otherCallback = new URL(await throughProvider(otherJar, otherAuthorization.href, "alice"));
    expect(otherCallback.searchParams.get("code")).toBeTruthy();
    myCallback.searchParams.set("code", otherCallback.searchParams.get("code") as string);
    expect(await finish(mine, myCallback.href)).toEqual(failed);

    const audit = (await (await fetch(`${gateway.url}/api/audit?action=session.sign_in&limit=20`, { headers: { "x-api-key": "oidc-test-operator-key-0123456789" } })).json()) as { entries: { outcome: string; detail?: { reason?: string } }[] };
    // Newest first: each refused for its own reason (the provider's, at the code exchange or the authorization).
    expect(audit.entries.slice(0, 4).map((entry) => [entry.outcome, entry.detail?.reason])).toEqual([
      ["denied", "invalid_grant: grant request is invalid"],
      ["denied", "the provider answered invalid_request"],
      ["denied", "invalid_grant: grant request is invalid"],
      ["denied", "invalid_grant: grant request is invalid"],
    ]);
  });

  it("ends the session after console.session_hours, and refuses a sign-in that took longer than ten minutes", async () => {
    const jar = new CookieJar();
    const done = await finish(jar, await toCallback(jar, "alice"));
    expect((await sessionOf(done.cookie as string)).signedIn).toBe(true);
    offsetMs = 13 * 3_600_000;
    try {
      const stale = await fetch(`${gateway.url}/api/users`, { headers: { cookie: done.cookie as string } });
      expect(stale.status).toBe(401);
      expect(((await stale.json()) as { code: string }).code).toBe("SESSION_EXPIRED");
      expect((await sessionOf(done.cookie as string)).signedIn).toBe(false);
    } finally {
      offsetMs = 0;
    }
    const slow = new CookieJar();
    const callback = await toCallback(slow, "alice");
    offsetMs = 11 * 60_000;
    try {
      expect(await finish(slow, callback)).toEqual(failed);
    } finally {
      offsetMs = 0;
    }
  });
});

import { createLogger, loadConfig } from "@thinktank/core";
import { makeProjectFixture, rawHttpRequest, startAgentProcess, type AgentProcess, type ProjectFixture } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGatewayDeps } from "../src/gateway-deps.js";
import { startGateway, type RunningGateway } from "../src/start-gateway.js";

// The console's sign-in over HTTP (docs/console.md, "Sign-in and sessions"): a real gateway and a real
// agent process on one project with THINKTANK_API_KEY, the cookie used at both (the agent through /agent).

const operatorKey = "console-session-operator-key-0123456789";
let project: ProjectFixture;
let agent: AgentProcess;
let gateway: RunningGateway;

beforeAll(async () => {
  project = await makeProjectFixture({ script: "name: s\nrules: []\nfallback:\n  reply: hi\n", env: { THINKTANK_API_KEY: operatorKey } });
  const config = loadConfig({ cwd: project.dir, env: project.env });
  [agent, gateway] = await Promise.all([startAgentProcess(project.env), startGateway(config, createGatewayDeps(config, { logger: createLogger({ level: "silent" }) }))]);
}, 150_000);

afterAll(async () => {
  await gateway?.close();
  await agent?.stop();
  project?.cleanup();
});

interface Session {
  signedIn: boolean;
  method?: string;
  user?: { id: string; name: string; role: string };
  csrfToken?: string;
  methods: string[];
}

const json = { "content-type": "application/json" };
const admin = { "x-api-key": operatorKey };

async function call(method: string, route: string, headers: Record<string, string> = {}, body?: unknown): Promise<{ status: number; body: Record<string, unknown>; setCookie: string | null }> {
  const response = await fetch(`${gateway.url}${route}`, { method, headers: { ...(body === undefined ? {} : json), ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, setCookie: response.headers.get("set-cookie") };
}

async function signIn(apiKey: string): Promise<{ cookie: string; session: Session; setCookie: string }> {
  const answer = await call("POST", "/api/session", {}, { api_key: apiKey });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const setCookie = answer.setCookie ?? "";
  return { cookie: setCookie.split(";")[0] as string, session: answer.body as unknown as Session, setCookie };
}

async function auditActions(action: string): Promise<{ outcome: string; actor?: { id: string }; detail?: Record<string, unknown> }[]> {
  const answer = await call("GET", `/api/audit?action=${action}`, admin);
  return (answer.body as { entries: { outcome: string; actor?: { id: string }; detail?: Record<string, unknown> }[] }).entries;
}

describe("console sessions", { timeout: 60_000 }, () => {
  it("answers signed out without a cookie, and refuses a wrong key (audited, the key never written)", async () => {
    const before = await call("GET", "/api/session");
    expect(before.body).toEqual({ signedIn: false, methods: ["api_key"] });
    const wrong = await call("POST", "/api/session", {}, { api_key: "not-a-key-but-a-secret-9876" });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe("UNAUTHENTICATED");
    expect(wrong.setCookie).toBeNull();
    const failed = await auditActions("session.sign_in");
    expect(failed[0]).toMatchObject({ outcome: "denied", detail: { reason: "unknown key" } });
    expect(JSON.stringify(failed)).not.toContain("not-a-key-but-a-secret-9876");
  });

  it("signs an administrator in with THINKTANK_API_KEY: an httpOnly SameSite=Strict cookie, CSRF on mutations, signed out with the token", async () => {
    const { cookie, session, setCookie } = await signIn(operatorKey);
    expect(setCookie).toMatch(/^thinktank_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    expect(session).toMatchObject({ signedIn: true, method: "api_key", user: { id: "admin", role: "admin" }, methods: ["api_key"] });
    expect(session.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await call("GET", "/api/session", { cookie })).body).toEqual(session);
    expect((await call("GET", "/api/users", { cookie })).status).toBe(200);

    // A mutation with the cookie: no token, a wrong one → 403 CSRF_FAILED, nothing made; the right one works.
    for (const headers of [{ cookie }, { cookie, "x-csrf-token": "wrong" }, { cookie, "x-csrf-token": "" }] as Record<string, string>[]) {
      const refused = await call("POST", "/api/users", headers, { name: "mallory", role: "admin" });
      expect(refused.status, JSON.stringify(headers)).toBe(403);
      expect(refused.body.code).toBe("CSRF_FAILED");
    }
    expect(JSON.stringify((await call("GET", "/api/users", admin)).body)).not.toContain("mallory");
    const made = await call("POST", "/api/users", { cookie, "x-csrf-token": session.csrfToken as string }, { name: "carol", role: "user" });
    expect(made.status).toBe(201);

    // A page of another origin: the Origin check stops it before the cookie is looked at (SameSite is the browser's part).
    const crossSite = await call("POST", "/api/users", { cookie, "x-csrf-token": session.csrfToken as string, origin: "https://evil.example" }, { name: "eve", role: "admin" });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.code).toBe("ORIGIN_NOT_ALLOWED");
    const sameSite = await call("POST", "/api/users", { cookie, "x-csrf-token": session.csrfToken as string, "sec-fetch-site": "same-site" }, { name: "eve", role: "admin" });
    expect(sameSite.body.code).toBe("ORIGIN_NOT_ALLOWED");

    // Sign-out needs the token too; then the cookie is dead everywhere.
    expect((await call("DELETE", "/api/session", { cookie })).body.code).toBe("CSRF_FAILED");
    const out = await call("DELETE", "/api/session", { cookie, "x-csrf-token": session.csrfToken as string });
    expect(out.status).toBe(204);
    expect(out.setCookie).toMatch(/^thinktank_session=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0/);
    const after = await call("GET", "/api/session", { cookie });
    expect(after.body).toEqual({ signedIn: false, methods: ["api_key"] });
    expect(after.setCookie).toMatch(/Max-Age=0/);
    const stale = await call("GET", "/api/users", { cookie });
    expect(stale.status).toBe(401);
    expect(stale.body.code).toBe("SESSION_EXPIRED");
    expect((await auditActions("session.sign_out"))[0]).toMatchObject({ outcome: "ok", actor: { id: "admin" } });
  });

  it("carries a user's session to the agent through /agent: their threads, CSRF checked by the agent too", async () => {
    const created = await call("POST", "/api/users", admin, { name: "dora", role: "user" });
    const doraKey = (created.body as { api_key: string }).api_key;
    const { cookie, session } = await signIn(doraKey);
    expect(session.user).toMatchObject({ name: "dora", role: "user" });
    expect((await auditActions("session.sign_in"))[0]).toMatchObject({ outcome: "ok", actor: { id: session.user?.id }, detail: { method: "api_key" } });

    const origin = { origin: gateway.url };
    const noToken = await call("POST", "/agent/threads", { cookie, ...origin }, {});
    expect(noToken.status).toBe(403);
    expect(noToken.body.code).toBe("CSRF_FAILED");
    const thread = await call("POST", "/agent/threads", { cookie, ...origin, "x-csrf-token": session.csrfToken as string }, {});
    expect(thread.status).toBe(200);
    const threadId = thread.body.thread_id as string;
    // Dora's own thread, as her key sees it; another user's key gets 404.
    expect((await fetch(`${agent.url}/threads/${threadId}`, { headers: { "x-api-key": doraKey } })).status).toBe(200);
    const other = (await call("POST", "/api/users", admin, { name: "erin", role: "user" })).body as { api_key: string };
    expect((await fetch(`${agent.url}/threads/${threadId}`, { headers: { "x-api-key": other.api_key } })).status).toBe(404);
    // Reads need no token.
    expect((await call("GET", `/agent/threads/${threadId}`, { cookie })).status).toBe(200);
    // A forged cookie is no one.
    const forged = await call("GET", `/agent/threads/${threadId}`, { cookie: `thinktank_session=${"A".repeat(43)}` });
    expect(forged.status).toBe(401);
    expect(forged.body.code).toBe("SESSION_EXPIRED");
  });

  it("ends the session when the key it was signed in with is removed", async () => {
    const created = (await call("POST", "/api/users", admin, { name: "finn", role: "user" })).body as { id: string; api_key: string; keys?: { id: string }[] };
    const { cookie } = await signIn(created.api_key);
    expect((await call("GET", "/api/session", { cookie })).body.signedIn).toBe(true);
    const user = (await call("GET", `/api/users/${created.id}`, admin)).body as { keys: { id: string }[] };
    expect((await call("DELETE", `/api/users/${created.id}/keys/${user.keys[0]?.id}`, admin)).status).toBe(204);
    expect((await call("GET", "/api/session", { cookie })).body.signedIn).toBe(false);
  });

  it("is the local administrator without signing in on a key-less loopback gateway, and still refuses cross-site writes", async () => {
    const keyless = await makeProjectFixture({ script: "name: s\nrules: []\n" });
    const config = loadConfig({ cwd: keyless.dir, env: keyless.env });
    const local = await startGateway(config, createGatewayDeps(config, { logger: createLogger({ level: "silent" }) }));
    try {
      const session = (await (await fetch(`${local.url}/api/session`)).json()) as Session;
      expect(session).toEqual({ signedIn: true, method: "loopback", user: { id: "admin", name: "local", role: "admin" }, methods: ["loopback", "api_key"] });
      const crossSite = await rawHttpRequest(new URL("/api/users", local.url), "POST", { ...json, origin: "https://evil.example" }, JSON.stringify({ name: "x", role: "admin" }));
      expect(crossSite.status).toBe(403);
      expect(crossSite.body.code).toBe("ORIGIN_NOT_ALLOWED");
      const own = await rawHttpRequest(new URL("/api/users", local.url), "POST", { ...json, origin: local.url }, JSON.stringify({ name: "x", role: "user" }));
      expect(own.status).toBe(201);
    } finally {
      await local.close();
      keyless.cleanup();
    }
  });
});

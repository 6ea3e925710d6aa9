import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OAuthTokenStore } from "./oauth-token-store.js";
import { PendingSignIns } from "./pending-sign-ins.js";
import type { PendingSignIn } from "./pending-sign-ins.js";

// Started sign-ins kept sealed beside the tokens, shared by every process on the folder.
let temp: { dir: string; cleanup: () => void };
let store: OAuthTokenStore;
const now = 1_700_000_000_000;

beforeEach(() => {
  temp = makeTempDir("tt-oauth-pending-");
  store = new OAuthTokenStore({ dir: path.join(temp.dir, "oauth") });
});
afterEach(() => temp.cleanup());

function pendingOf(tokenStore: OAuthTokenStore, max = 100): PendingSignIns {
  return new PendingSignIns({ dir: path.join(tokenStore.dir, "pending"), key: () => tokenStore.secretKey(), max });
}

function started(state: string, options: { startedAt?: number; ttlMs?: number } = {}): PendingSignIn {
  const startedAt = options.startedAt ?? now;
  return {
    server: "crm",
    url: "https://mcp.example.com/mcp",
    settings: { grant: "authorization_code", clientId: "configured-client", clientSecret: "configured-secret-value" },
    redirect_url: "http://127.0.0.1:8001/api/mcp/oauth/callback",
    state,
    code_verifier: `verifier-${state}-0123456789abcdefghijklmnopqrstuvwxyz`,
    discovery: { authorizationServerUrl: "https://auth.example.com/" },
    client: { client_id: "registered-client", client_secret: "registered-secret-value" },
    return_to: "https://app.example.com/settings",
    started_at: startedAt,
    expires_at: startedAt + (options.ttlMs ?? 60_000),
  };
}

const stateOf = (): string => crypto.randomBytes(32).toString("base64url");
const pendingDir = (): string => path.join(store.dir, "pending");
const files = (): string[] => (fs.existsSync(pendingDir()) ? fs.readdirSync(pendingDir()).sort() : []);

describe("pending sign-ins", () => {
  it("are sealed: named by the state's hash, no verifier, secret or state in the clear, mode 0600", async () => {
    const state = stateOf();
    const record = started(state);
    await pendingOf(store).put(record, now);
    const hash = crypto.createHash("sha256").update(state).digest("hex");
    expect(files()).toEqual([`${hash}.json`]);
    const file = path.join(pendingDir(), `${hash}.json`);
    const raw = fs.readFileSync(file, "utf8");
    for (const secret of [state, record.code_verifier as string, "configured-secret-value", "registered-secret-value", "registered-client", "crm", "app.example.com"]) expect(raw).not.toContain(secret);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(pendingDir()).mode & 0o777).toBe(0o700);
    expect(pendingOf(store).peek(state, now)).toEqual(record);
  });

  it("cannot be read with another key: THINKTANK_SECRET_KEY or the key file changed", async () => {
    const state = stateOf();
    const keyed = new OAuthTokenStore({ dir: store.dir, secret: "the right key" });
    await pendingOf(keyed).put(started(state), now);
    expect(pendingOf(keyed).peek(state, now)?.server).toBe("crm");
    const other = pendingOf(new OAuthTokenStore({ dir: store.dir, secret: "another key" }));
    expect(other.peek(state, now)).toBeUndefined();
    expect(pendingOf(store).peek(state, now)).toBeUndefined(); // the generated key file is another key too
    expect(await other.take(state, now)).toBeUndefined();
    expect(files()).toEqual([]); // it can never be finished: gone
    expect(await pendingOf(keyed).take(state, now)).toBeUndefined();
  });

  it("a state is taken once; an unknown one is nothing; an expired one is refused and removed", async () => {
    const pending = pendingOf(store);
    const state = stateOf();
    await pending.put(started(state), now);
    expect(await pending.take(stateOf(), now)).toBeUndefined();
    expect((await pending.take(state, now + 1000))?.code_verifier).toBe(started(state).code_verifier);
    expect(await pending.take(state, now + 1000)).toBeUndefined();
    expect(pending.peek(state, now)).toBeUndefined();

    const late = stateOf();
    await pending.put(started(late, { ttlMs: 5000 }), now);
    expect(pending.peek(late, now + 4999)?.return_to).toBe("https://app.example.com/settings");
    expect(pending.peek(late, now + 5000)).toBeUndefined();
    expect(await pending.take(late, now + 5000)).toBeUndefined();
    expect(files()).toEqual([]);
  });

  it("adding one sweeps the expired, drops the oldest past the cap and half-written files", async () => {
    const pending = pendingOf(store, 3);
    const states = Array.from({ length: 5 }, stateOf);
    await pending.put(started(states[0] as string, { startedAt: now, ttlMs: 1000 }), now);
    await pending.put(started(states[1] as string, { startedAt: now + 1 }), now + 1);
    await pending.put(started(states[2] as string, { startedAt: now + 2 }), now + 2);
    const leftover = path.join(pendingDir(), `${"0".repeat(64)}.json.123456`);
    fs.writeFileSync(leftover, "half");
    // states[0] expired: swept, so the cap of 3 is not reached yet.
    await pending.put(started(states[3] as string, { startedAt: now + 2000 }), now + 2000);
    expect(files()).toHaveLength(3);
    expect(fs.existsSync(leftover)).toBe(false);
    expect(pending.peek(states[0] as string, now)).toBeUndefined();
    // At the cap: the oldest (states[1]) makes room.
    await pending.put(started(states[4] as string, { startedAt: now + 3000 }), now + 3000);
    expect(files()).toHaveLength(3);
    expect(states.map((state) => pending.peek(state, now + 3000) !== undefined)).toEqual([false, false, true, true, true]);
  });

  it("four processes taking one state at once: exactly one gets it", async () => {
    const state = stateOf();
    store.secretKey(); // the key file exists before the processes start
    await pendingOf(store).put(started(state, { startedAt: Date.now() }), Date.now());
    const fixture = path.join(import.meta.dirname, "fixtures", "take-pending.ts");
    const children = Array.from({ length: 4 }, () => spawn(process.execPath, ["--import", import.meta.resolve("tsx"), fixture, store.dir, state], { stdio: ["pipe", "pipe", "inherit"] }));
    const lines = children.map((child) => {
      const seen: string[] = [];
      let buffer = "";
      child.stdout.on("data", (chunk: Buffer) => {
        buffer += chunk.toString();
        const parts = buffer.split("\n");
        buffer = parts.pop() ?? "";
        seen.push(...parts);
      });
      return seen;
    });
    const waitLine = (index: number, match: (line: string) => boolean): Promise<string> =>
      expect.poll(() => lines[index]?.find(match), { timeout: 60_000 }).toBeDefined().then(() => lines[index]?.find(match) as string);
    await Promise.all(children.map((_, index) => waitLine(index, (line) => line === "ready")));
    for (const child of children) child.stdin.write("go\n");
    const results = (await Promise.all(children.map((_, index) => waitLine(index, (line) => line.startsWith("{"))))).map((line) => JSON.parse(line) as { taken: boolean });
    expect(results.filter((result) => result.taken)).toEqual([{ taken: true, server: "crm" }]);
    expect(files()).toEqual([]);
  }, 90_000);
});

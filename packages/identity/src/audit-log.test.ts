import path from "node:path";
import { loadConfig, type Caller } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openIdentity, type Identity } from "./index.js";

let temp: ReturnType<typeof makeTempDir>;
let identity: Identity | undefined;
let now = new Date("2026-01-01T00:00:00.000Z");

beforeEach(() => {
  temp = makeTempDir("tt-audit-");
  now = new Date("2026-01-01T00:00:00.000Z");
});
afterEach(async () => {
  await identity?.close();
  identity = undefined;
  temp.cleanup();
});

async function open(yaml = "{}\n"): Promise<Identity> {
  writeTree(temp.dir, { "config.yaml": yaml });
  const config = loadConfig({ cwd: temp.dir, env: { THINKTANK_DATA_DIR: path.join(temp.dir, "data") } });
  identity = await openIdentity(config, { clock: () => now });
  return identity;
}

const ada: Caller = { id: "usr_00000000000000aa", name: "Ada", role: "user", auth: "key" };
const tick = () => {
  now = new Date(now.getTime() + 1000);
};

describe("the audit log", () => {
  it("records who did what, lists newest first with a cursor and filters", async () => {
    const audit = (await open()).audit;
    for (let index = 0; index < 5; index++) {
      await audit.record({ actor: ada, action: "skill.enable", target: `skill-${index}`, outcome: "ok", source: "127.0.0.1" });
      tick();
    }
    await audit.record({ actor: undefined, action: "auth.failed", outcome: "denied", detail: { reason: "unknown key" } });
    const first = await audit.list({ limit: 4 });
    expect(first.entries.map((entry) => entry.target ?? entry.action)).toEqual(["auth.failed", "skill-4", "skill-3", "skill-2"]);
    expect(first.entries[0]).toEqual({ id: expect.stringMatching(/^aud_/), at: "2026-01-01T00:00:05.000Z", action: "auth.failed", outcome: "denied", detail: { reason: "unknown key" } });
    expect(first.entries[1]).toMatchObject({ actor: { id: ada.id, name: "Ada", role: "user", auth: "key" }, source: "127.0.0.1", outcome: "ok" });
    const second = await audit.list({ limit: 4, before: first.next });
    expect(second.entries.map((entry) => entry.target)).toEqual(["skill-1", "skill-0"]);
    expect(second.next).toBeUndefined();
    expect((await audit.list({ action: "auth.failed" })).entries).toHaveLength(1);
    expect((await audit.list({ actor: ada.id })).entries).toHaveLength(5);
    expect((await audit.list({ target: "skill-3" })).entries.map((entry) => entry.target)).toEqual(["skill-3"]);
  });

  it("never writes a secret: secret-named keys, bearer credentials, key-shaped values and user keys are masked", async () => {
    const audit = (await open()).audit;
    const userKey = "tt_u_0123456789ab_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ12";
    await audit.record({
      actor: ada,
      action: "server.add",
      target: userKey,
      outcome: "ok",
      detail: { headers: { Authorization: "Bearer abcdefgh12345678" }, api_key: "plain", note: "ghp_0123456789abcdefghijABCDEFGHIJ012345", url: "https://u:pw@example.com/x?token=abc", nested: { value: userKey } },
    });
    const [entry] = (await audit.list({})).entries;
    const text = JSON.stringify(entry);
    for (const secret of [userKey, "abcdefgh12345678", "plain", "ghp_0123456789", ":pw@", "token=abc"]) expect(text).not.toContain(secret);
    expect(entry?.target).toBe("[redacted]");
  });

  it("prunes by count and by age", async () => {
    const audit = (await open("auth:\n  audit:\n    retention_days: 1\n    max_entries: 3\n")).audit;
    for (let index = 0; index < 6; index++) {
      await audit.record({ actor: ada, action: "a", target: String(index), outcome: "ok" });
      tick();
    }
    // Pruning runs every so often; an explicit prune is what open and the periodic one do.
    await (audit as unknown as { prune(): Promise<void> }).prune();
    expect((await audit.list({})).entries.map((entry) => entry.target)).toEqual(["5", "4", "3"]);
    now = new Date(now.getTime() + 2 * 86_400_000);
    await audit.record({ actor: ada, action: "a", target: "late", outcome: "ok" });
    await (audit as unknown as { prune(): Promise<void> }).prune();
    expect((await audit.list({})).entries.map((entry) => entry.target)).toEqual(["late"]);
  });

  it("keeps a flood of failed authentications (no actor) to a tenth of max_entries: it never pushes out who changed what", async () => {
    const audit = (await open("auth:\n  audit:\n    max_entries: 20\n")).audit;
    for (let index = 0; index < 3; index++) await audit.record({ actor: ada, action: "skill.settings", target: `kept-${index}`, outcome: "ok" });
    for (let index = 0; index < 40; index++) await audit.record({ actor: undefined, action: "auth.failed", target: `flood-${index}`, outcome: "failed", source: "203.0.113.9" });
    await (audit as unknown as { prune(): Promise<void> }).prune();
    const targets = (await audit.list({ limit: 100 })).entries.map((entry) => entry.target);
    expect(targets).toEqual(["flood-39", "flood-38", "kept-2", "kept-1", "kept-0"]);
  });

  it("never throws: a failed write is logged", async () => {
    const opened = await open();
    await opened.close();
    identity = undefined;
    await expect(opened.audit.record({ actor: ada, action: "a", outcome: "ok" })).resolves.toBeUndefined();
  });
});

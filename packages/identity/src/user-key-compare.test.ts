import type * as nodeCrypto from "node:crypto";
import path from "node:path";
import { loadConfig } from "@thinktank/core";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { openIdentity, type Identity } from "./index.js";

// Counts timingSafeEqual calls: every user-key check goes through exactly one, known key id or not.
const compared = vi.hoisted(() => ({ calls: 0 }));
vi.mock("node:crypto", async (importOriginal) => {
  const original = await importOriginal<typeof nodeCrypto>();
  const timingSafeEqual: typeof original.timingSafeEqual = (a, b) => {
    compared.calls++;
    return original.timingSafeEqual(a, b);
  };
  return { ...original, default: { ...original, timingSafeEqual }, timingSafeEqual };
});

let temp: ReturnType<typeof makeTempDir>;
let identity: Identity;
beforeEach(async () => {
  temp = makeTempDir("tt-identity-compare-");
  identity = await openIdentity(loadConfig({ cwd: temp.dir, env: { THINKTANK_DATA_DIR: path.join(temp.dir, "data") } }));
});
afterEach(async () => {
  await identity.close();
  temp.cleanup();
});

it("a user key is checked with one constant-time compare of 32-byte digests, whether its id is known or not", async () => {
  const { apiKey } = await identity.users.create({ name: "Ada", role: "user" });
  const secret = apiKey.slice(18);
  const wrongSecret = `${secret.slice(0, -1)}${secret.endsWith("A") ? "B" : "A"}`;
  for (const [presented, ok] of [
    [apiKey, true],
    [`${apiKey.slice(0, 18)}${wrongSecret}`, false],
    [`tt_u_ffffffffffff_${secret}`, false],
  ] as const) {
    compared.calls = 0;
    expect((await identity.authenticate({ "x-api-key": presented }, { keyless: false })).ok).toBe(ok);
    expect(compared.calls).toBe(1);
  }
});

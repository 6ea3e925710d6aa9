// Authentication cost per request (issue 25): a user key, a JWT whose verification is cached (warm),
// the operator's key, against the key-less path (no credentials on a loopback service), all through
// one Identity.authenticate on one SQLite threads database with 100 users. Each sample times a batch
// of calls and divides, so the figure is the cost of one call, not the timer's; the first
// verification of a JWT (signature check by a cached JWKS key) is shown apart.
import path from "node:path";
import { loadConfig } from "@thinktank/core";
import { openIdentity, type CredentialHeaders, type Identity } from "@thinktank/identity";
import { makeTempDir, startOpenIdProvider, writeTree } from "@thinktank/testing";
import { round, summarize, type Benchmark, type BenchContext, type Measurement } from "./harness.js";

const users = 100;
const batch = 1000;
const samples = 200;
const audience = "https://thinktank.bench";
const target = 0.2;

async function perCall(identity: Identity, headers: CredentialHeaders, keyless: boolean): Promise<ReturnType<typeof summarize>> {
  const context = { keyless };
  for (let i = 0; i < batch; i++) await identity.authenticate(headers, context);
  const values: number[] = [];
  for (let sample = 0; sample < samples; sample++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) await identity.authenticate(headers, context);
    values.push(Number(process.hrtime.bigint() - start) / 1e6 / batch);
  }
  return summarize(values);
}

const benchmark: Benchmark = {
  title: "Authentication per request: user key, JWT, operator key against the key-less path",
  issue: 25,
  async run(context: BenchContext): Promise<Measurement[]> {
    const temp = makeTempDir("tt-bench-identity-");
    const provider = await startOpenIdProvider();
    try {
      writeTree(temp.dir, { "config.yaml": JSON.stringify({ auth: { jwt: { issuer: provider.issuer, audience } } }) });
      const config = loadConfig({ cwd: temp.dir, env: { THINKTANK_DATA_DIR: path.join(temp.dir, "data"), THINKTANK_API_KEY: "bench-operator-key-0123456789" } });
      const identity = await openIdentity(config);
      try {
        let userKey = "";
        for (let i = 0; i < users; i++) userKey = (await identity.users.create({ name: `user ${i}`, role: "user" })).apiKey;
        const jwt = await provider.token({ subject: "bench-user", audience, name: "Bench", role: "member" });
        const checked = await identity.authenticate({ authorization: `Bearer ${jwt}` }, { keyless: false });
        if (!checked.ok || !checked.caller) throw new Error(`the bench JWT was refused: ${checked.ok ? "no caller" : checked.reason}`);
        context.log(`${users} users; timing ${samples} batches of ${batch} calls each`);
        const keyless = await perCall(identity, {}, true);
        const cases: [string, CredentialHeaders][] = [
          ["user key (X-API-Key)", { "x-api-key": userKey }],
          ["JWT, warm (Authorization: Bearer)", { authorization: `Bearer ${jwt}` }],
          ["operator key (THINKTANK_API_KEY)", { "x-api-key": "bench-operator-key-0123456789" }],
        ];
        const results: Measurement[] = [];
        for (const [name, headers] of cases) {
          const summary = await perCall(identity, headers, false);
          context.log(`${name}: p50 ${summary.median.toFixed(4)} ms`);
          results.push({
            name,
            value: round(summary.median, 4),
            unit: "ms",
            stats: { p95: round(summary.p95, 4), "over key-less": round(summary.median - keyless.median, 4), samples: `${samples} × ${batch}` },
            baseline: { name: "key-less, no credentials", value: round(keyless.median, 4), unit: "ms" },
            target: `p50 <= ${target} ms`,
            pass: summary.median <= target,
          });
        }
        // A JWT's first verification: distinct tokens, the JWKS already cached (no fetch).
        const cold: number[] = [];
        for (let i = 0; i < 300; i++) {
          const token = provider.sign({ iss: provider.issuer, aud: audience, sub: `cold-${i}`, exp: Math.floor(Date.now() / 1000) + 600 });
          const start = process.hrtime.bigint();
          const outcome = await identity.authenticate({ authorization: `Bearer ${token}` }, { keyless: false });
          cold.push(Number(process.hrtime.bigint() - start) / 1e6);
          if (!outcome.ok) throw new Error(`a cold JWT was refused: ${outcome.reason}`);
        }
        const coldSummary = summarize(cold.slice(20));
        results.push({
          name: "JWT, first verification (RS256 signature, JWKS cached)",
          value: round(coldSummary.median, 4),
          unit: "ms",
          stats: { p95: round(coldSummary.p95, 4), samples: coldSummary.samples },
          baseline: { name: "key-less, no credentials", value: round(keyless.median, 4), unit: "ms" },
        });
        return results;
      } finally {
        await identity.close();
      }
    } finally {
      await provider.stop();
      temp.cleanup();
    }
  },
};

export default benchmark;

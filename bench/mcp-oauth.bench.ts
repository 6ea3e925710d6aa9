// OAuth overhead per tool call: the same protected server (streamable HTTP, the MCP SDK's bearer
// middleware) called through McpManager with a stored, cached OAuth token, against the same server
// configured with a static Authorization header carrying the same token. Calls interleaved.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { McpManager, OAuthSignIn, OAuthTokenStore } from "@thinktank/mcp";
import { startOAuthTestServer } from "@thinktank/mcp/testing";
import { round, summarize, timeIt } from "./harness.js";
import type { Benchmark, Measurement } from "./harness.js";

const samples = 1000;
const warmup = 100;

const benchmark: Benchmark = {
  title: "MCP OAuth: overhead per call of a stored token over a static header",
  issue: 16,
  async run(context) {
    const server = await startOAuthTestServer();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tt-bench-oauth-"));
    const store = new OAuthTokenStore({ dir: path.join(dir, "oauth") });
    const mcp = { connect_timeout_ms: 30_000, call_timeout_ms: 30_000, retries: 0, retry_base_delay_ms: 1, catalog_dir: path.join(dir, "catalog") };
    const managers: McpManager[] = [];
    try {
      context.log("signing in to the test authorization server");
      const signIn = new OAuthSignIn({ store, env: {}, clientName: "bench", pendingTtlMs: 60_000, timeoutMs: 10_000 });
      const entry = { type: "http", url: server.mcpUrl };
      const started = await signIn.start("crm", entry, { redirectUrl: "http://127.0.0.1:9/callback" });
      const callback = new URL(await server.approve(started.authorizationUrl));
      await signIn.finish(Object.fromEntries(callback.searchParams), async () => entry);
      const token = store.get("crm")?.tokens?.access_token as string;
      const withOAuth = new McpManager({ mcp, env: {}, oauthStore: store, writeCatalog: false }, { crm: entry });
      const withHeader = new McpManager({ mcp, env: {}, writeCatalog: false }, { crm: { ...entry, headers: { Authorization: `Bearer ${token}` } } });
      managers.push(withOAuth, withHeader);
      const args = { a: 1, b: 2 };
      const oauthCall = (): Promise<unknown> => withOAuth.callTool("crm", "add", args);
      const headerCall = (): Promise<unknown> => withHeader.callTool("crm", "add", args);
      context.log(`warming up (${warmup} calls each)`);
      for (let i = 0; i < warmup; i++) {
        await oauthCall();
        await headerCall();
      }
      context.log(`measuring ${samples} calls each, interleaved`);
      const times = { oauth: [] as number[], header: [] as number[] };
      for (let i = 0; i < samples; i++) {
        for (const [which, call] of i % 2 === 0 ? ([["oauth", oauthCall], ["header", headerCall]] as const) : ([["header", headerCall], ["oauth", oauthCall]] as const)) {
          const start = process.hrtime.bigint();
          await call();
          times[which].push(Number(process.hrtime.bigint() - start) / 1e6);
        }
      }
      const oauth = summarize(times.oauth);
      const header = summarize(times.header);
      const lookup = await timeIt(() => store.get("crm"), { samples: 5000, warmup: 500 });
      const overhead = oauth.median - header.median;
      const baseline = { name: "static Authorization header p50", value: round(header.median, 3), unit: "ms" };
      if (server.stats().refreshes !== 0) throw new Error("the token was refreshed during the benchmark: not the cached-token path");
      const measurements: Measurement[] = [
        {
          name: "McpManager.callTool p50, OAuth server with a cached token (streamable HTTP, local)",
          value: round(oauth.median, 3),
          unit: "ms",
          stats: { p95: round(oauth.p95, 3), "header p95": round(header.p95, 3), samples },
          baseline,
        },
        {
          name: "OAuth overhead per call (p50 OAuth − p50 static header)",
          value: round(overhead, 3),
          unit: "ms",
          stats: { "token lookup p50 (stat of the sealed file, cached decrypt)": `${round(lookup.median * 1000, 1)} µs` },
          baseline,
          target: "≤ 0.2 ms p50",
          pass: overhead <= 0.2,
        },
      ];
      return measurements;
    } finally {
      await Promise.all(managers.map((manager) => manager.close()));
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default benchmark;

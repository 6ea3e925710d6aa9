// MCP per user (issue 25): a tool call on an OAuth-protected server as a user (their own session
// and token) against the same call as the operator (the shared session, the path of a key-less
// single-operator install), interleaved; and the manager's per-request reads (readyServers,
// status) for the operator and for a user, with 100 users' sessions in the manager.
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
  title: "MCP per user: a call with a user's own session and token, against the operator's",
  issue: 25,
  async run(context) {
    const server = await startOAuthTestServer();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tt-bench-mcp-users-"));
    const store = new OAuthTokenStore({ dir: path.join(dir, "oauth") });
    const mcp = { connect_timeout_ms: 30_000, call_timeout_ms: 30_000, retries: 0, retry_base_delay_ms: 1, catalog_dir: path.join(dir, "catalog") };
    const entry = { type: "http", url: server.mcpUrl };
    const manager = new McpManager({ mcp, env: {}, oauthStore: store, writeCatalog: false }, { crm: entry });
    try {
      context.log("signing in the operator and one user");
      for (const user of [undefined, "usr_bench"]) {
        const signIn = new OAuthSignIn({ store, env: {}, clientName: "bench", pendingTtlMs: 60_000, timeoutMs: 10_000 });
        const started = await signIn.start("crm", entry, { redirectUrl: "http://127.0.0.1:9/callback", ...(user ? { user } : {}) });
        const callback = new URL(await server.approve(started.authorizationUrl, { account: user ?? "operator" }));
        await signIn.finish(Object.fromEntries(callback.searchParams), async () => entry);
      }
      // 100 other users with a session object each (not signed in: their reads find no token).
      for (let i = 0; i < 100; i++) manager.statusOf("crm", `usr_other${i}`);
      const args = { a: 1, b: 2 };
      const asOperator = (): Promise<unknown> => manager.callTool("crm", "add", args);
      const asUser = (): Promise<unknown> => manager.callTool("crm", "add", args, { user: "usr_bench" });
      context.log(`warming up (${warmup} calls each)`);
      for (let i = 0; i < warmup; i++) {
        await asOperator();
        await asUser();
      }
      context.log(`measuring ${samples} calls each, interleaved`);
      const times = { operator: [] as number[], user: [] as number[] };
      for (let i = 0; i < samples; i++) {
        for (const [which, call] of i % 2 === 0 ? ([["operator", asOperator], ["user", asUser]] as const) : ([["user", asUser], ["operator", asOperator]] as const)) {
          const start = process.hrtime.bigint();
          await call();
          times[which].push(Number(process.hrtime.bigint() - start) / 1e6);
        }
      }
      const operator = summarize(times.operator);
      const user = summarize(times.user);
      const readsOperator = await timeIt(() => (manager.readyServers(), manager.status()), { samples: 20_000, warmup: 2000 });
      const readsUser = await timeIt(() => (manager.readyServers("usr_bench"), manager.status("usr_bench")), { samples: 20_000, warmup: 2000 });
      const baseline = { name: "as the operator (shared session) p50", value: round(operator.median, 3), unit: "ms" };
      const measurements: Measurement[] = [
        {
          name: "McpManager.callTool p50 as a user (their session and token)",
          value: round(user.median, 3),
          unit: "ms",
          stats: { p95: round(user.p95, 3), "operator p95": round(operator.p95, 3), samples },
          baseline,
          target: "≤ the operator's + 0.2 ms",
          pass: user.median - operator.median <= 0.2,
        },
        {
          name: "readyServers() + status() per request, 102 users' sessions in the manager",
          value: round(readsUser.median * 1000, 2),
          unit: "µs",
          stats: { "as the operator (key-less path)": `${round(readsOperator.median * 1000, 2)} µs` },
        },
      ];
      return measurements;
    } finally {
      await manager.close();
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default benchmark;

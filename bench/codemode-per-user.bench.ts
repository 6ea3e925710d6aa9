// Code mode per user (issue 25): search_tools and a run's tool surface (auto mode) for a user with
// a server of their own (searched in an overlay beside the shared index, counted on top of the
// shared token count) against the operator's (the shared index alone), interleaved, over a
// synthetic 2,000-tool shared catalog; and what a user's view costs when their tools change.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CodeMode, type ToolInvoker } from "@thinktank/codemode";
import { loadConfig } from "@thinktank/core";
import { McpManager, type CatalogServer, type CatalogTool } from "@thinktank/mcp";
import { createSandboxExecutor } from "@thinktank/sandbox";
import { seededRandom } from "@thinktank/testing";
import { chooseToolSurface } from "../packages/codemode/src/surface/choose-tool-surface.js";
import { round, summarize, timeIt } from "./harness.js";
import type { Benchmark, Measurement } from "./harness.js";

const samples = 2000;
const warmup = 200;
const user = "usr_bench";
const queries = ["create an issue", "post a message to the channel", "upload a file to the folder", "list the invoices of a customer", "append a paragraph to my note", "restore a database backup", "who reviewed the pull request", "search logs for an alert"];

/** 100 servers × 20 tools, words drawn from a small vocabulary (deterministic). */
function sharedCatalog(): CatalogServer[] {
  const words = "issue repository message channel note calendar event file folder upload download search list create update delete user team project task comment label branch commit pull request review deploy build test log metric alert incident page document sheet cell row column invoice payment customer order product price ticket email contact meeting record query table database schema index backup restore".split(" ");
  const random = seededRandom(42);
  const pick = (): string => words[Math.floor(random() * words.length)] as string;
  return Array.from({ length: 100 }, (_, s) => ({
    server: `srv${s}`,
    tools: Array.from({ length: 20 }, (_, t): CatalogTool => ({
      name: `${pick()}_${pick()}_${t}`,
      description: `${pick()} the ${pick()} of a ${pick()} and ${pick()} its ${pick()} ${pick()}.`,
      inputSchema: { type: "object", properties: { [pick()]: { type: "string" }, [pick()]: { type: "number" } } },
    })),
  }));
}

const benchmark: Benchmark = {
  title: "Code mode per user: search_tools and the tool surface with a user's own server, against the operator's",
  issue: 25,
  async run(context) {
    const catalog = sharedCatalog();
    const byName = new Map(catalog.map((server) => [server.server, server.tools]));
    let own: readonly CatalogTool[] = [{ name: "append_note", description: "Append a paragraph to a note in the notebook.", inputSchema: { type: "object", properties: { note: { type: "string" } } } }];
    const invoker: ToolInvoker = {
      serverNames: (who) => (who === user ? [...byName.keys(), "~notes"] : [...byName.keys()]),
      describe: (server) => ({ name: server, transport: "http", status: "connected" }),
      knownTools: (server, who) => (server === "~notes" ? (who === user ? own : undefined) : byName.get(server)),
      listTools: async (server) => byName.get(server) ?? [],
      callTool: async () => ({ content: [] }),
    };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tt-bench-codemode-users-"));
    const loaded = loadConfig({ cwd: dir, env: {} });
    const config = { ...loaded, env: { PATH: process.env.PATH }, sandbox: { ...loaded.sandbox, warm_pool_size: 0 } };
    const executor = createSandboxExecutor({ config, ...(process.env.PATH ? { searchPath: process.env.PATH } : {}), runtimeDir: path.join(dir, "sandbox") });
    const codeMode = new CodeMode({ config, executor, invokers: [invoker], runtimeDir: path.join(dir, "bridges"), generateCodeApi: false });
    const manager = new McpManager({ mcp: config.mcp, env: config.env }, {});
    try {
      const search = (who: string | undefined, i: number) => codeMode.searchTools({ query: queries[i % queries.length] as string }, who);
      const surface = (who: string | undefined) => chooseToolSurface({ codeMode, manager, mode: "auto", autoThresholdTokens: 4000, place: { threadId: "t", ...(who ? { userId: who } : {}) } });
      context.log(`warming up (${warmup} rounds)`);
      for (let i = 0; i < warmup; i++) {
        await search(undefined, i);
        await search(user, i);
        await surface(undefined);
        await surface(user);
      }
      context.log(`measuring ${samples} rounds, interleaved`);
      const times = { searchOperator: [] as number[], searchUser: [] as number[], surfaceOperator: [] as number[], surfaceUser: [] as number[] };
      const time = async (into: number[], work: () => Promise<unknown>): Promise<void> => {
        const start = process.hrtime.bigint();
        await work();
        into.push(Number(process.hrtime.bigint() - start) / 1e3);
      };
      for (let i = 0; i < samples; i++) {
        const first = i % 2 === 0 ? undefined : user;
        const second = first === undefined ? user : undefined;
        for (const who of [first, second]) await time(who === undefined ? times.searchOperator : times.searchUser, () => search(who, i));
        for (const who of [first, second]) await time(who === undefined ? times.surfaceOperator : times.surfaceUser, () => surface(who));
      }
      const [searchOperator, searchUser, surfaceOperator, surfaceUser] = [times.searchOperator, times.searchUser, times.surfaceOperator, times.surfaceUser].map(summarize) as [ReturnType<typeof summarize>, ReturnType<typeof summarize>, ReturnType<typeof summarize>, ReturnType<typeof summarize>];
      // A change of the user's tools: their overlay is rebuilt (the shared index is not).
      let version = 0;
      const changed = await timeIt(
        () => {
          own = [{ ...(own[0] as CatalogTool), description: `Append a paragraph to a note (${version++}).` }];
          return codeMode.users.view(user);
        },
        { samples: 2000, warmup: 200 },
      );
      const measurements: Measurement[] = [
        {
          name: "search_tools p50 for a user with an own server (2,000 shared tools)",
          value: round(searchUser.median, 1),
          unit: "µs",
          baseline: { name: "the operator's p50", value: round(searchOperator.median, 1), unit: "µs" },
          target: "≤ the operator's × 1.25",
          pass: searchUser.median <= searchOperator.median * 1.25,
          stats: { p95: round(searchUser.p95, 1), "operator p95": round(searchOperator.p95, 1), samples },
        },
        {
          name: "tool surface (auto) p50 for that user",
          value: round(surfaceUser.median, 1),
          unit: "µs",
          baseline: { name: "the operator's p50", value: round(surfaceOperator.median, 1), unit: "µs" },
          stats: { p95: round(surfaceUser.p95, 1), "operator p95": round(surfaceOperator.p95, 1) },
        },
        { name: "a user's view after their tool list changed (overlay rebuilt)", value: round(changed.median * 1000, 1), unit: "µs" },
      ];
      return measurements;
    } finally {
      await codeMode.close();
      await manager.close();
      await executor.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default benchmark;

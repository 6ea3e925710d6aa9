// Long threads (issue 26): bytes on disk per turn, and history pages, for a 100-turn thread with a
// 100 KB message per turn, before (LangGraph's SQLite saver as it is: every checkpoint stores the
// whole message list; history states serialized whole) and after (BlobRefSaver: large strings once
// per thread; history pages of at most agent.threads.history_max_mb, streamed). Both in this process,
// in the same run, on SQLite files of their own.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph, type BaseCheckpointSaver } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { openSqliteStore, serverAccess, ThreadService } from "@thinktank/runs";
import { round, summarize } from "./harness.js";
import type { Benchmark, Measurement } from "./harness.js";

const turns = 100;
const messageBytes = 100 * 1024;
const historyRequests = 30;
const historyLimit = 10;
const historyMaxBytes = 16 * 1024 * 1024;
const megabyte = 1024 * 1024;

/** A 100 KB message of prose, different each turn. */
const message = (turn: number) => `turn ${turn}:`.padEnd(messageBytes, ` turn ${turn}: the quarterly figures, "as exported", with notes\n`);

const graphOver = (checkpointer: BaseCheckpointSaver) =>
  new StateGraph(MessagesAnnotation)
    .addNode("model", (state) => ({ messages: [new AIMessage(`Read ${String(state.messages.at(-1)?.content).length} characters.`)] }))
    .addEdge(START, "model")
    .addEdge("model", END)
    .compile({ checkpointer });

/** Bytes of the SQLite file with its write-ahead log folded in. */
function fileBytes(file: string): number {
  const db = new Database(file);
  try {
    db.pragma("wal_checkpoint(TRUNCATE)");
    return (db.pragma("page_count", { simple: true }) as number) * (db.pragma("page_size", { simple: true }) as number);
  } finally {
    db.close();
  }
}

/** Runs the turns; returns the file's bytes after each tenth turn. */
async function fill(graph: ReturnType<typeof graphOver>, threadId: string, file: string, log: (message: string) => void): Promise<number[]> {
  const sizes: number[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    await graph.invoke({ messages: [new HumanMessage(message(turn))] }, { configurable: { thread_id: threadId } });
    if (turn % 10 === 0) {
      sizes.push(fileBytes(file));
      log(`turn ${turn}: ${round(sizes.at(-1)! / megabyte, 1)} MB`);
    }
  }
  return sizes;
}

const benchmark: Benchmark = {
  title: "Long threads: bytes on disk per turn, history pages (100 turns of 100 KB)",
  issue: 26,
  async run({ log }) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tt-bench-threads-"));
    try {
      const contentMb = (turns * messageBytes) / megabyte;
      // Before: LangGraph's saver over its own file.
      const beforeFile = path.join(dir, "before.sqlite");
      const plainDb = new Database(beforeFile);
      const plain = new SqliteSaver(plainDb);
      const plainGraph = graphOver(plain);
      log("before: the plain saver");
      const beforeSizes = await fill(plainGraph, "thread", beforeFile, log);
      const beforeHistory: number[] = [];
      let beforeBytes = 0;
      for (let index = 0; index < historyRequests; index++) {
        const started = performance.now();
        const states: unknown[] = [];
        // As the route did: each state to plain JSON (stringify, parse), then the answer stringified whole.
        for await (const snapshot of plainGraph.getStateHistory({ configurable: { thread_id: "thread", checkpoint_ns: "" } }, { limit: historyLimit })) {
          states.push(JSON.parse(JSON.stringify({ values: snapshot.values, next: snapshot.next, metadata: snapshot.metadata, checkpoint: snapshot.config })));
        }
        beforeBytes = Buffer.byteLength(JSON.stringify(states));
        beforeHistory.push(performance.now() - started);
      }
      plainDb.close();

      // After: the agent's store (BlobRefSaver) and ThreadService's pages, streamed.
      const afterFile = path.join(dir, "after.sqlite");
      const store = await openSqliteStore(afterFile);
      const afterGraph = graphOver(store.checkpointer);
      const threads = new ThreadService({ store, clock: () => new Date(), stateGraph: afterGraph, threadMetadata: {}, historyMaxBytes });
      const thread = await threads.create({}, serverAccess);
      log("after: BlobRefSaver");
      const afterSizes = await fill(afterGraph, thread.thread_id, afterFile, log);
      const afterHistory: number[] = [];
      let afterBytes = 0;
      let afterStates = 0;
      for (let index = 0; index < historyRequests; index++) {
        const started = performance.now();
        const page = await threads.history(thread.thread_id, { limit: historyLimit }, serverAccess);
        let bytes = 0;
        for await (const piece of threads.body(page.states)) bytes += (piece as Buffer).length;
        afterHistory.push(performance.now() - started);
        afterBytes = bytes;
        afterStates = page.states.length;
      }
      await store.close();

      const perTurn = (sizes: number[]) => ((sizes.at(-1) as number) - (sizes.at(-2) as number)) / 10;
      const before = summarize(beforeHistory);
      const after = summarize(afterHistory);
      const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.99))] as number;
      const results: Measurement[] = [
        {
          name: `bytes on disk per turn, turns 91-100 (a turn adds ${messageBytes / 1024} KB of message)`,
          value: round(perTurn(afterSizes) / 1024, 0),
          unit: "KB",
          baseline: { name: "plain saver", value: round(perTurn(beforeSizes) / 1024, 0), unit: "KB" },
          target: "grows with what changed",
          pass: perTurn(afterSizes) < 3 * messageBytes,
        },
        {
          name: `database after ${turns} turns (${contentMb.toFixed(1)} MB of messages)`,
          value: round((afterSizes.at(-1) as number) / megabyte, 1),
          unit: "MB",
          baseline: { name: "plain saver", value: round((beforeSizes.at(-1) as number) / megabyte, 1), unit: "MB" },
          target: `<= 3x the messages (${(3 * contentMb).toFixed(1)} MB)`,
          pass: (afterSizes.at(-1) as number) <= 3 * contentMb * megabyte,
        },
        {
          name: `POST /threads/:id/history {limit: ${historyLimit}} on the 100-turn thread (service and body, no HTTP)`,
          value: round(after.median, 1),
          unit: "ms",
          baseline: { name: "plain saver, states serialized whole", value: round(before.median, 1), unit: "ms" },
          stats: {
            p99: round(p99(afterHistory), 1),
            "baseline p99": round(p99(beforeHistory), 1),
            "states per page": afterStates,
            "MB per page": round(afterBytes / megabyte, 1),
            "baseline states": historyLimit,
            "baseline MB": round(beforeBytes / megabyte, 1),
            samples: historyRequests,
          },
          target: "time follows what a page returns",
        },
      ];
      return results;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default benchmark;

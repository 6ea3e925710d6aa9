import type { RunnableConfig } from "@langchain/core/runnables";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { nextTurn } from "../runs/fair-turns.js";

type PutArguments = Parameters<SqliteSaver["put"]>;
type PutWritesArguments = Parameters<SqliteSaver["putWrites"]>;
type CheckpointTuple = Awaited<ReturnType<SqliteSaver["getTuple"]>>;

/**
 * SQLite checkpoints that take a turn (fair-turns.ts) before each read and write: better-sqlite3
 * is synchronous, so without a wait here a run's whole step (node, writes, checkpoint, next tasks)
 * is one stretch of the event loop with no I/O in between.
 */
export class TurnTakingSqliteSaver extends SqliteSaver {
  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple> {
    await nextTurn();
    return super.getTuple(config);
  }

  override async put(...args: PutArguments): Promise<RunnableConfig> {
    await nextTurn();
    return super.put(...args);
  }

  override async putWrites(...args: PutWritesArguments): Promise<void> {
    await nextTurn();
    return super.putWrites(...args);
  }
}

import type { RunRecord, RunStatus } from "../persistence/agent-records.js";
import type { RunFigures } from "./run-figures.js";
import type { RunRequest } from "./run-request.js";

/** How a run ended, as its executor reports it. */
export interface RunOutcome {
  readonly status: RunStatus;
  readonly error?: { readonly error: string; readonly message: string };
  /** What it spent (tokens, tool calls), when the executor counts it. */
  readonly figures?: RunFigures;
}

/** One run to execute, as the run manager hands it over once it is the run's turn. */
export interface RunJob {
  readonly run: RunRecord;
  readonly request: RunRequest;
  /** The clock's time when the run was marked running (a request's "now"). */
  readonly startedAt: Date;
  /** Aborted when the run is cancelled (interrupt or rollback): the executor stops and reports `interrupted`. */
  readonly signal: AbortSignal;
}

/**
 * The "execute and emit" seam: runs one job and emits its events (after the `metadata` event the
 * manager wrote) through `emit`. Never throws: the outcome says how the run ended. The manager
 * records the outcome; the executor never touches run or thread records. graphRunExecutor is the
 * LangGraph one; a worker on another replica would call the same function.
 */
export type RunExecutor = (job: RunJob, emit: (event: string, json: string) => void) => Promise<RunOutcome>;

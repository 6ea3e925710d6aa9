/** What a run spent, as its executor counted it (run-tally.ts). */
export interface RunFigures {
  /** Model tokens over all the run's calls (sub-agents' too); `estimated` when counted here because the model reported none. */
  readonly tokens?: { readonly input: number; readonly output: number; readonly total: number; readonly estimated?: boolean };
  readonly tool_calls: number;
  /** Tool calls that failed (threw, or answered a tool message with status error). */
  readonly tool_errors: number;
}

/** A finished run's figures as stored with it and listed by `GET /runs/recent`. */
export interface RunSummary extends Partial<RunFigures> {
  /** From the run's start (its turn, not its wait in the queue) to its end. */
  readonly duration_ms: number;
  /** How it failed, for a run that ended `error`. */
  readonly error?: { readonly error: string; readonly message: string };
}

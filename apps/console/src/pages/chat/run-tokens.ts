// Token use per run: the agent keeps each finished run's figures (its model tokens, as reported or
// counted when the model reported none; sub-agents' included) and lists them with GET
// /agent/runs/recent. A turn's runs are the one its message started and those that resumed it
// (answers to approvals and questions), so each answer shows what its runs spent together.
import type { Client } from "@langchain/langgraph-sdk";
import { api } from "../../api/api-client.js";

export interface RunTokens {
  readonly input: number;
  readonly output: number;
  /** Counted by the agent (the model reported none) rather than reported. */
  readonly estimated: boolean;
  /** Runs whose figures were found (a run still going, or long gone from the recent list, has none). */
  readonly runs: number;
}

interface RunRow {
  readonly run_id: string;
  readonly created_at: string;
  readonly kwargs?: Readonly<Record<string, unknown>>;
}

type Figures = { readonly input: number; readonly output: number; readonly estimated?: boolean };

/** Each turn's tokens, in the order of the thread's turns that start with a message. Pure: exported for tests. */
export function tokensByTurn(runs: readonly RunRow[], figures: ReadonlyMap<string, Figures>): (RunTokens | undefined)[] {
  const turns: (RunTokens | undefined)[] = [];
  const ordered = [...runs].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.run_id.localeCompare(b.run_id));
  for (const run of ordered) {
    const input = run.kwargs?.input as { messages?: unknown } | null | undefined;
    const startsTurn = Array.isArray(input?.messages) && input.messages.length > 0;
    if (startsTurn || turns.length === 0) turns.push(undefined);
    const spent = figures.get(run.run_id);
    if (!spent) continue;
    const current = turns[turns.length - 1];
    turns[turns.length - 1] = {
      input: (current?.input ?? 0) + spent.input,
      output: (current?.output ?? 0) + spent.output,
      estimated: (current?.estimated ?? false) || spent.estimated === true,
      runs: (current?.runs ?? 0) + 1,
    };
  }
  return turns;
}

/** Reads a thread's runs and the recent runs' figures; undefined entries where none are known. */
export async function loadTurnTokens(client: Client, threadId: string): Promise<(RunTokens | undefined)[]> {
  const [runs, recent] = await Promise.all([
    client.runs.list(threadId, { limit: 200 }) as Promise<RunRow[]>,
    api<{ runs: { run_id: string; thread_id: string; tokens?: Figures }[] }>("/agent/runs/recent?limit=200"),
  ]);
  const figures = new Map(recent.runs.flatMap((run) => (run.thread_id === threadId && run.tokens ? [[run.run_id, run.tokens] as const] : [])));
  return tokensByTurn(runs, figures);
}

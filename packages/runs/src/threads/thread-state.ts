import type { StateSnapshot } from "@langchain/langgraph";
import { toPlainJson } from "../to-plain-json.js";

/** A checkpoint reference as the API shows it. */
export interface ApiCheckpoint {
  readonly thread_id: string;
  readonly checkpoint_ns: string;
  readonly checkpoint_id: string | null;
  readonly checkpoint_map: Record<string, unknown> | null;
}

/** The API's ThreadState: values, next nodes, tasks (with interrupts), checkpoint and parent. */
export interface ApiThreadState {
  readonly values: Record<string, unknown>;
  readonly next: string[];
  readonly tasks: unknown[];
  readonly metadata: Record<string, unknown> | null;
  readonly created_at: string | null;
  readonly checkpoint: ApiCheckpoint | null;
  readonly parent_checkpoint: ApiCheckpoint | null;
  readonly interrupts: unknown[];
}

export function toApiThreadState(snapshot: StateSnapshot): ApiThreadState {
  const tasks = snapshot.tasks.map((task) => ({
    id: task.id,
    name: task.name,
    path: task.path ?? null,
    error: task.error === undefined || task.error === null ? null : task.error instanceof Error ? task.error.message : String(task.error),
    interrupts: task.interrupts ?? [],
    checkpoint: null,
    state: null,
    result: (task as { result?: unknown }).result ?? null,
  }));
  return toPlainJson<ApiThreadState>({
    values: snapshot.values ?? {},
    next: snapshot.next ?? [],
    tasks,
    metadata: snapshot.metadata ?? null,
    created_at: snapshot.createdAt ?? null,
    checkpoint: toApiCheckpoint(snapshot.config?.configurable),
    parent_checkpoint: toApiCheckpoint(snapshot.parentConfig?.configurable),
    interrupts: tasks.flatMap((task) => task.interrupts),
  });
}

/** Pending interrupts by task id, as Thread.interrupts shows them. */
export function interruptsByTask(snapshot: StateSnapshot): Record<string, unknown[]> {
  const entries = snapshot.tasks.filter((task) => (task.interrupts?.length ?? 0) > 0).map((task) => [task.id, toPlainJson<unknown[]>(task.interrupts)]);
  return Object.fromEntries(entries);
}

function toApiCheckpoint(configurable: Record<string, unknown> | undefined): ApiCheckpoint | null {
  if (!configurable?.thread_id || !configurable.checkpoint_id) return null;
  return {
    thread_id: String(configurable.thread_id),
    checkpoint_ns: String(configurable.checkpoint_ns ?? ""),
    checkpoint_id: String(configurable.checkpoint_id),
    checkpoint_map: (configurable.checkpoint_map as Record<string, unknown> | undefined) ?? null,
  };
}

import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { ThinktankError } from "@thinktank/core";
import { BlobRefSaver } from "../persistence/blob-ref-saver.js";

/**
 * Copies every checkpoint of thread `from` (all namespaces), with its pending writes, to thread
 * `to`, keeping checkpoint ids and parents, so the copy has the same state, history and pending
 * interrupts. Through the saver's own list/put/putWrites, so it works on SqliteSaver and
 * PostgresSaver alike (neither has a copy of its own). A BlobRefSaver's blobs are copied first and
 * its checkpoints as stored (with their markers), so no large string is read or hashed again.
 * Returns how many checkpoints it copied. The caller removes `to`'s checkpoints if this throws.
 */
export async function copyThreadCheckpoints(checkpointer: BaseCheckpointSaver, from: string, to: string): Promise<number> {
  let saver = checkpointer;
  if (checkpointer instanceof BlobRefSaver) {
    await checkpointer.blobs.copyThread(from, to);
    saver = checkpointer.inner;
  }
  let copied = 0;
  for await (const tuple of saver.list({ configurable: { thread_id: from } })) {
    const { checkpoint_ns = "", checkpoint_id } = (tuple.config.configurable ?? {}) as { checkpoint_ns?: string; checkpoint_id?: string };
    const parentId = tuple.parentConfig?.configurable?.checkpoint_id as string | undefined;
    // The run's config put thread_id into the checkpoint metadata; the copy names its own thread.
    const metadata = tuple.metadata && "thread_id" in tuple.metadata ? { ...tuple.metadata, thread_id: to } : (tuple.metadata ?? { source: "update" as const, step: -1, parents: {} });
    // Every channel version is new to the target thread: PostgresSaver stores a channel's blob only for the versions passed here.
    await saver.put({ configurable: { thread_id: to, checkpoint_ns, ...(parentId ? { checkpoint_id: parentId } : {}) } }, tuple.checkpoint, metadata, tuple.checkpoint.channel_versions);
    const byTask = new Map<string, [string, unknown][]>();
    for (const [taskId, channel, value] of tuple.pendingWrites ?? []) byTask.set(taskId, [...(byTask.get(taskId) ?? []), [channel, value]]);
    for (const [taskId, writes] of byTask) await saver.putWrites({ configurable: { thread_id: to, checkpoint_ns, checkpoint_id } }, writes, taskId);
    copied += 1;
  }
  return copied;
}

/**
 * Merges `metadata` into the metadata of the thread's latest checkpoint, in place (PATCH
 * /threads/:id/state): written again under its own id after its parent, as a saver's put takes the
 * parent from the config, with no new channel versions. NOT_FOUND when the thread has no checkpoint.
 */
export async function patchCheckpointMetadata(checkpointer: BaseCheckpointSaver, threadId: string, metadata: Record<string, unknown>): Promise<void> {
  const latest = await checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } });
  if (!latest) throw new ThinktankError("NOT_FOUND", `thread ${threadId} has no state yet: run it or update its state first`);
  const parent = latest.parentConfig ?? { configurable: { thread_id: threadId, checkpoint_ns: "" } };
  await checkpointer.put(parent, latest.checkpoint, { ...latest.metadata, ...metadata } as typeof latest.metadata & object, {});
}

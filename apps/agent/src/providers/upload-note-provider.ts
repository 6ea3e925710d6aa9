import type { RequestProvider, ThreadUpload } from "../request/request-context.js";

/** Where the thread's uploads are read from (the files package's ThreadFiles fits). */
export interface ThreadUploads {
  /** The thread's uploads with seq greater than `seq`, oldest first. */
  uploadsSince(threadId: string, seq: number): Promise<readonly ThreadUpload[]>;
}

/**
 * The upload note's source: no prompt section and no tool (the system prompt stays the same
 * whatever is uploaded), only the run's `uploadsSince`, from which the graph notes the files uploaded
 * since the previous user message on the next one (build-lead-agent-graph.ts, node skill_context).
 */
export function createUploadNoteProvider(uploads: ThreadUploads): RequestProvider {
  return { name: "upload-note", contribute: (request) => ({ uploadsSince: (seq) => uploads.uploadsSince(request.threadId, seq) }) };
}

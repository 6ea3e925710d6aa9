/**
 * A file the model showed the user with `present_files`: what a frontend reads from the thread
 * state (`artifacts`), the tool result (`ToolMessage.artifact`, `additional_kwargs.artifacts`) and
 * the AI message that answers after it (`additional_kwargs.artifacts`).
 */
export interface ThreadArtifact {
  /** As the model sees it, e.g. /mnt/user-data/outputs/summary.md. */
  readonly path: string;
  /** The file's name (the last segment of `path`). */
  readonly name: string;
  /** Bytes, when it was presented. */
  readonly size: number;
  readonly mime_type: string;
  /** The download route, relative to the agent server's origin: /threads/<thread_id>/files/<folder>/<relative path>. */
  readonly url: string;
}

const stringKeys = ["path", "name", "mime_type", "url"] as const;

/** Whether a value is a well-formed artifact (state updates and messages may come from a client). */
export function isThreadArtifact(value: unknown): value is ThreadArtifact {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return stringKeys.every((key) => typeof record[key] === "string") && typeof record.size === "number" && Number.isFinite(record.size) && record.size >= 0;
}

/** The well-formed artifacts of a value (an array, or anything else: none), keeping only their known fields. */
export function artifactsOf(value: unknown): ThreadArtifact[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isThreadArtifact).map(({ path, name, size, mime_type, url }) => ({ path, name, size, mime_type, url }));
}

/**
 * The reducer of the thread state's `artifacts`: merged by path, newest last (an artifact presented
 * again moves to the end with its new size). Malformed entries of `next` are dropped.
 */
export function mergeArtifacts(current: readonly ThreadArtifact[], next: unknown): ThreadArtifact[] {
  const added = artifactsOf(next);
  const latest = new Map(added.map((artifact) => [artifact.path, artifact]));
  return [...current.filter((artifact) => !latest.has(artifact.path)), ...latest.values()];
}

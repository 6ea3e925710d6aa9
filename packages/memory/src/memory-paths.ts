import { checkNameSegment, cleanVirtualPath, isThinktankError, ThinktankError } from "@thinktank/core";

/** The folder the model sees its memory as. */
export const memoryRoot = "/memories";

/** The deepest a memory path goes below /memories, and the longest name part, in UTF-8 bytes. */
export const maxMemoryDepth = 8;
export const maxMemoryNameBytes = 200;

/** A checked memory path: as the model writes it (`/memories/a/b.md`) and its parts below /memories ([] for /memories itself). */
export interface MemoryPath {
  readonly virtual: string;
  readonly segments: readonly string[];
}

export interface ResolveMemoryPathOptions {
  /** Take a path without a leading '/' as relative to /memories (the API's `*path`); the tool's paths are absolute. @default false */
  readonly relative?: boolean;
}

/**
 * The one check of a memory path: the file tools' virtual path rules (cleanVirtualPath: no NUL,
 * backslash, '..' or encoded traversal), then only /memories and below, at most maxMemoryDepth
 * deep, every name part passing core's name rule (no hidden, control or direction characters, no
 * look-alike dots or slashes) and not starting with '.' (no hidden files: the store's own temp files
 * start so). Everything refused is MEMORY_PATH_INVALID, with the reason; links are refused where the
 * path meets the disk (UserMemory).
 */
export function resolveMemoryPath(input: unknown, options: ResolveMemoryPathOptions = {}): MemoryPath {
  const given = typeof input === "string" && options.relative === true && !input.startsWith("/") ? `${memoryRoot}/${input}` : input;
  let cleaned: string;
  try {
    cleaned = cleanVirtualPath(given, memoryRoot);
  } catch (error) {
    throw isThinktankError(error) ? invalid(error.message, error.code) : error;
  }
  if (cleaned !== memoryRoot && !cleaned.startsWith(`${memoryRoot}/`)) throw invalid(`path ${JSON.stringify(input)} is outside ${memoryRoot}; memory paths start with ${memoryRoot}/`, "OUTSIDE");
  const segments = cleaned === memoryRoot ? [] : cleaned.slice(memoryRoot.length + 1).split("/");
  if (segments.length > maxMemoryDepth) throw invalid(`path ${JSON.stringify(input)} is more than ${maxMemoryDepth} folders deep`, "TOO_DEEP");
  for (const segment of segments) {
    if (segment.startsWith(".")) throw invalid(`path ${JSON.stringify(input)} has the hidden name ${JSON.stringify(segment)}; names may not start with '.'`, "HIDDEN_NAME");
    if (Buffer.byteLength(segment) > maxMemoryNameBytes) throw invalid(`path ${JSON.stringify(input)} has a name longer than ${maxMemoryNameBytes} bytes`, "NAME_TOO_LONG");
    try {
      checkNameSegment(segment, cleaned);
    } catch (error) {
      throw isThinktankError(error) ? invalid(error.message, "BAD_NAME") : error;
    }
  }
  return { virtual: cleaned, segments };
}

/** The virtual path of a file below /memories from its parts. */
export function memoryPathOf(segments: readonly string[]): string {
  return segments.length === 0 ? memoryRoot : `${memoryRoot}/${segments.join("/")}`;
}

/** MEMORY_PATH_INVALID with why (`details.reason`). */
export function invalid(message: string, reason: string): ThinktankError {
  return new ThinktankError("MEMORY_PATH_INVALID", message, { details: { reason } });
}

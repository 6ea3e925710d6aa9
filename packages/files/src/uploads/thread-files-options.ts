import type { Config } from "@thinktank/core";
import type { DocumentConverter } from "../convert/document-converter.js";

export interface ThreadFilesOptions {
  /** data_dir and sandbox.workspaces_dir (where the folders are), files.* (the limits). */
  readonly config: Pick<Config, "data_dir" | "sandbox" | "files">;
  /** Makes Markdown versions of documents after an upload; none: no conversions (files.conversion.enabled false). */
  readonly converter?: DocumentConverter;
  /** Creates a thread's workspace with the right owner (the sandbox executor's workspaceFor). @default mkdir -p */
  readonly ensureWorkspace?: (threadId: string) => string;
  /** The clock for uploaded_at. @default () => new Date() */
  readonly clock?: () => Date;
  /** Most entries one listing returns. @default 1000 */
  readonly maxListEntries?: number;
  /** Bytes one listing hashes at most (files not yet in the hash cache); the rest list with sha256 null until a later listing. @default 512 MiB */
  readonly listHashBytes?: number;
  /** Hashes remembered (by thread, folder, path, size, mtime and inode). @default 20000 */
  readonly hashCacheEntries?: number;
}

import { escapeHiddenCharacters, escapeXml } from "@thinktank/core";

/** What the note needs of an upload (the manifest's UploadRecord fits). */
export interface UploadNoteSource {
  readonly path: string;
  readonly size: number;
  readonly mime_type: string;
  readonly converted?: { readonly path: string; readonly size: number };
  readonly conversion_error?: string;
}

/** One file of a note, as stored on the user message. */
export interface UploadNoteFile {
  readonly path: string;
  readonly size: number;
  readonly mime_type: string;
  readonly converted?: { readonly path: string; readonly size: number };
  readonly conversion_error?: string;
}

/** The note stored on a user message (additional_kwargs.uploaded_files): the files listed, and how many more were uploaded. */
export interface UploadNote {
  readonly files: readonly UploadNoteFile[];
  readonly more: number;
}

export interface UploadNoteOptions {
  /** Most files listed; the rest are counted ("and K more"). @default 20 */
  readonly maxListed?: number;
  /** Longest conversion reason kept, in characters. @default 200 */
  readonly maxReasonLength?: number;
}

/** The note for these uploads (oldest first), bounded; undefined when there are none. */
export function uploadNoteFor(uploads: readonly UploadNoteSource[], options: UploadNoteOptions = {}): UploadNote | undefined {
  if (uploads.length === 0) return undefined;
  const maxListed = options.maxListed ?? 20;
  const maxReason = options.maxReasonLength ?? 200;
  const files = uploads.slice(0, maxListed).map((upload): UploadNoteFile => ({
    path: upload.path,
    size: upload.size,
    mime_type: upload.mime_type,
    ...(upload.converted ? { converted: { path: upload.converted.path, size: upload.converted.size } } : {}),
    ...(upload.conversion_error !== undefined ? { conversion_error: upload.conversion_error.length > maxReason ? `${upload.conversion_error.slice(0, maxReason)}...` : upload.conversion_error } : {}),
  }));
  return { files, more: uploads.length - files.length };
}

/**
 * The note as the model reads it, after the user's text: an `<uploaded_files>` block, one line per
 * file (path, bytes, type, and the Markdown text version or why there is none), then "and K more".
 * Everything from the upload is escaped for the markup, its whitespace runs (line breaks too) made one space and trimmed. Empty for a malformed note (a client may
 * send a message with its own additional_kwargs).
 */
export function renderUploadNote(note: unknown): string {
  if (!isUploadNote(note) || (note.files.length === 0 && note.more === 0)) return "";
  // One line per file: a line break inside a value (a converter's reason may quote the document) cannot start a line of its own.
  const text = (value: string) => escapeXml(escapeHiddenCharacters(value.replace(/\s+/g, " ").trim()));
  const lines = note.files.map((file) => {
    let line = `- ${text(file.path)} (${file.size} bytes, ${text(file.mime_type)})`;
    if (file.converted) line += `; as text: ${text(file.converted.path)} (${file.converted.size} bytes)`;
    else if (file.conversion_error !== undefined) line += `; no text version: ${text(file.conversion_error)}`;
    return line;
  });
  if (note.more > 0) lines.push(`- and ${note.more} more (ls /mnt/user-data/uploads)`);
  return ["<uploaded_files>", "Files the user uploaded with this message (read-only; read a document's text version):", ...lines, "</uploaded_files>"].join("\n");
}

/** Whether a value is a well-formed note. */
export function isUploadNote(value: unknown): value is UploadNote {
  if (typeof value !== "object" || value === null) return false;
  const { files, more } = value as { files?: unknown; more?: unknown };
  return Array.isArray(files) && files.every(isNoteFile) && Number.isSafeInteger(more) && (more as number) >= 0;
}

function isNoteFile(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const file = value as Record<string, unknown>;
  const sized = (entry: unknown) => typeof entry === "object" && entry !== null && typeof (entry as Record<string, unknown>).path === "string" && Number.isSafeInteger((entry as Record<string, unknown>).size);
  return (
    sized(file) &&
    typeof file.mime_type === "string" &&
    (file.converted === undefined || sized(file.converted)) &&
    (file.conversion_error === undefined || typeof file.conversion_error === "string")
  );
}

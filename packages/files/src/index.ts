// Public API of @thinktank/files: what other packages and apps use, and what README.md documents.

// folders, uploads, listing and serving (the thread files API)
export { threadFilesDir, threadFolders } from "./folders/thread-folders.js";
export { ThreadFiles, mimeTypeFor, threadFileFolders } from "./uploads/thread-files.js";
export type { IncomingFile, OpenedThreadFile, ThreadFileEntry, ThreadFileFolder } from "./uploads/thread-files.js";
export type { ThreadFilesOptions } from "./uploads/thread-files-options.js";
export type { UploadRecord } from "./uploads/upload-manifest.js";
export { maxNameBytes, numberedName, safeFileName } from "./uploads/safe-file-name.js";
export { sendThreadFile } from "./serve/send-thread-file.js";
export type { ThreadFileResponse } from "./serve/send-thread-file.js";
export { dispositionFileName, servingHeaders } from "./serve/serving-headers.js";

// artifacts (present_files) and the upload note
export { presentFiles, presentableFolders } from "./artifacts/present-files.js";
export type { PresentFilesOptions, PresentFilesResult } from "./artifacts/present-files.js";
export { artifactsOf, isThreadArtifact, mergeArtifacts } from "./artifacts/thread-artifact.js";
export type { ThreadArtifact } from "./artifacts/thread-artifact.js";
export { threadFileUrl } from "./artifacts/thread-file-url.js";
export { isUploadNote, renderUploadNote, uploadNoteFor } from "./artifacts/upload-note.js";
export type { UploadNote, UploadNoteFile, UploadNoteOptions, UploadNoteSource } from "./artifacts/upload-note.js";

// document conversions (Markdown side files, made in the sandbox)
export { createDocumentConverter } from "./convert/document-converter.js";
export type { ConversionResult, DocumentConverter, DocumentConverterOptions } from "./convert/document-converter.js";

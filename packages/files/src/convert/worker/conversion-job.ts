/** The formats the converter reads. */
export type DocumentKind = "pdf" | "docx" | "xlsx" | "pptx" | "csv" | "html";

/**
 * What the host hands the worker: this object as one JSON line on stdin, then the document's bytes.
 * The worker answers on stdout with one JSON line (a `WorkerStatus`), then the Markdown.
 */
export interface ConversionJob {
  readonly kind: DocumentKind;
  /** The document's file name, for the Markdown's first line. */
  readonly name: string;
  /** PDF pages and PPTX slides read. */
  readonly maxPages: number;
  /** Spreadsheet and CSV cells read. */
  readonly maxCells: number;
  /** Bytes of Markdown written, header and notes included. */
  readonly maxOutputBytes: number;
  /** Most bytes one ZIP entry may inflate to (DOCX, XLSX, PPTX): entries are checked against their declared sizes before a parser sees them. */
  readonly maxEntryBytes: number;
  /**
   * Where pdfjs's character maps (CJK encodings) may be, in order: the worker reads the first
   * folder that exists (the sandbox path under bubblewrap, the host path under Deno). Without
   * them, text in fonts with a predefined CMap comes out empty.
   */
  readonly cMapFolders: readonly string[];
}

/** The worker's first line of stdout. */
export type WorkerStatus = { readonly ok: true; readonly truncated: boolean } | { readonly ok: false; readonly reason: string };

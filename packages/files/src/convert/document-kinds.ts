import path from "node:path";
import type { DocumentKind } from "./worker/conversion-job.js";

const byExtension: Readonly<Record<string, DocumentKind>> = {
  ".pdf": "pdf",
  ".docx": "docx",
  ".xlsx": "xlsx",
  ".pptx": "pptx",
  ".csv": "csv",
  ".tsv": "csv",
  ".html": "html",
  ".htm": "html",
};

const byMimeType: Readonly<Record<string, DocumentKind>> = {
  "application/pdf": "pdf",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
  "text/csv": "csv",
  "text/tab-separated-values": "csv",
  "text/html": "html",
};

/** Which converter reads a file: by its name's extension, else by its MIME type (parameters ignored); undefined for none. */
export function documentKindOf(name: string, mimeType: string | undefined): DocumentKind | undefined {
  const extension = path.extname(name).toLowerCase();
  if (extension && extension in byExtension) return byExtension[extension];
  const type = (mimeType ?? "").split(";")[0]!.trim().toLowerCase();
  return byMimeType[type];
}

/** ZIP packages (Office Open XML): their central directory is checked on the host before a worker starts. */
export function isZipPackage(kind: DocumentKind): boolean {
  return kind === "docx" || kind === "xlsx" || kind === "pptx";
}

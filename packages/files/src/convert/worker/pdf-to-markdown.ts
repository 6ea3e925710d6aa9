import fs from "node:fs";
import path from "node:path";
import { getDocument, VerbosityLevel } from "pdfjs-dist/legacy/build/pdf.mjs";
import type { TextItem, TextMarkedContent } from "pdfjs-dist/types/src/display/api.js";
import type { ConversionJob } from "./conversion-job.js";
import { DocumentProblem } from "./document-problem.js";
import { formatCount, MarkdownOutput } from "./markdown-output.js";
import type { Converted } from "./converted.js";

/**
 * A PDF's text, page by page, with pdfjs (its legacy build, which runs in Node and Deno): no eval,
 * no fonts, no fetches, errors only in its log. Reads at most `maxPages` pages.
 */
export async function pdfToMarkdown(data: Uint8Array, job: ConversionJob): Promise<Converted> {
  if (!hasPdfSignature(data)) throw new DocumentProblem("the file is not a PDF (it has no %PDF header)");
  const cMapFolder = job.cMapFolders.find(isFolder);
  const task = getDocument({
    data,
    ...(cMapFolder ? { cMapUrl: `${cMapFolder}/`, cMapPacked: true, CMapReaderFactory: cMapReaderFor(cMapFolder) } : {}),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    useWorkerFetch: false,
    disableAutoFetch: true,
    disableStream: true,
    stopAtErrors: false,
    verbosity: VerbosityLevel.ERRORS,
  });
  let document;
  try {
    document = await task.promise;
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name === "PasswordException") throw new DocumentProblem("the PDF is encrypted (it needs a password)");
    if (name === "InvalidPDFException") throw new DocumentProblem("the file is not a readable PDF");
    throw new DocumentProblem("the PDF could not be read");
  }
  const output = new MarkdownOutput(job.maxOutputBytes);
  const pages = Math.min(document.numPages, job.maxPages);
  let read = 0;
  for (let number = 1; number <= pages && !output.full; number++) {
    const page = await document.getPage(number);
    const content = await page.getTextContent();
    page.cleanup();
    read = number;
    output.add(`## Page ${number}\n\n${pageText(content.items)}\n\n`);
  }
  if (document.numPages > pages) output.stopped(`stopped after ${formatCount(pages)} pages of ${formatCount(document.numPages)}`);
  else if (output.full && read < pages) output.stopped(`read ${formatCount(read)} pages of ${formatCount(document.numPages)}`);
  await document.destroy();
  return { output, summary: `PDF, ${formatCount(document.numPages)} page${document.numPages === 1 ? "" : "s"}` };
}

/** Whether a folder is there to read (Deno throws for a path it may not read, where Node says false). */
function isFolder(folder: string): boolean {
  try {
    return fs.statSync(folder).isDirectory();
  } catch {
    return false;
  }
}

/** Reads pdfjs's packed character maps from one folder, by plain names only (a PDF names the map it wants). */
function cMapReaderFor(folder: string) {
  return class FolderCMapReader {
    async fetch({ name }: { name: string }): Promise<{ cMapData: Uint8Array; isCompressed: boolean }> {
      if (!/^[A-Za-z0-9][\w.+-]*$/.test(name)) throw new Error("not a CMap name");
      const data = await fs.promises.readFile(path.join(folder, `${name}.bcmap`));
      return { cMapData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), isCompressed: true };
    }
  };
}

function pageText(items: readonly (TextItem | TextMarkedContent)[]): string {
  let text = "";
  for (const item of items) {
    if (!("str" in item)) continue;
    text += item.str;
    if (item.hasEOL) text += "\n";
  }
  return text.replace(/[ \t]+\n/g, "\n").replace(/\n{3,}/g, "\n\n").trim();
}

/** "%PDF-" in the first KiB, where readers look for it. */
function hasPdfSignature(data: Uint8Array): boolean {
  const head = new TextDecoder("latin1").decode(data.subarray(0, 1024));
  return head.includes("%PDF-");
}

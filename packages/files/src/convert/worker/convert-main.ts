// The conversion worker: bundled with esbuild into one ES module and run in the sandbox (never on
// the host's event loop). stdin: a ConversionJob as one JSON line, then the document. stdout: a
// WorkerStatus as one JSON line, then the Markdown. It reads nothing else and writes nowhere else.
import "./polyfills.js";
import fs from "node:fs";
import type { ConversionJob, WorkerStatus } from "./conversion-job.js";
import type { Converted } from "./converted.js";
import { DocumentProblem } from "./document-problem.js";

// Each parser is imported when its format comes: esbuild keeps such a module in the one bundle but
// evaluates it only then, so a CSV never loads pdfjs or exceljs (less start-up time and memory).
async function convert(job: ConversionJob, data: Uint8Array): Promise<Converted> {
  switch (job.kind) {
    case "pdf": {
      const [{ pdfToMarkdown }, pdfjsWorker] = await Promise.all([import("./pdf-to-markdown.js"), import("pdfjs-dist/legacy/build/pdf.worker.mjs")]);
      // pdfjs runs its parser in this thread (its "fake worker") instead of loading a worker file.
      (globalThis as Record<string, unknown>).pdfjsWorker = pdfjsWorker;
      return pdfToMarkdown(data, job);
    }
    case "docx": {
      const [{ CheckedZip }, { docxToMarkdown }] = await Promise.all([import("./checked-zip.js"), import("./docx-to-markdown.js")]);
      new CheckedZip(data, job.maxEntryBytes);
      return docxToMarkdown(data, job);
    }
    case "xlsx": {
      const [{ CheckedZip }, { xlsxToMarkdown }] = await Promise.all([import("./checked-zip.js"), import("./xlsx-to-markdown.js")]);
      new CheckedZip(data, job.maxEntryBytes);
      return xlsxToMarkdown(data, job);
    }
    case "pptx": {
      const [{ CheckedZip }, { pptxToMarkdown }] = await Promise.all([import("./checked-zip.js"), import("./pptx-to-markdown.js")]);
      return pptxToMarkdown(new CheckedZip(data, job.maxEntryBytes), job);
    }
    case "csv":
      return (await import("./csv-to-markdown.js")).csvToMarkdown(data, job);
    case "html":
      return (await import("./html-to-markdown.js")).htmlToMarkdown(data, job);
  }
}

function answer(status: WorkerStatus, markdown = ""): Promise<void> {
  return new Promise((resolve) => process.stdout.write(`${JSON.stringify(status)}\n${markdown}`, () => resolve()));
}

async function main(): Promise<void> {
  const input = fs.readFileSync(0);
  const newline = input.indexOf(10);
  const job = JSON.parse(input.subarray(0, newline).toString("utf8")) as ConversionJob;
  const data = new Uint8Array(input.buffer, input.byteOffset + newline + 1, input.length - newline - 1);
  try {
    const { output, summary } = await convert(job, data);
    await answer({ ok: true, truncated: output.truncated }, output.finish(job.name, summary));
  } catch (error) {
    const reason = error instanceof DocumentProblem ? error.message : "the document could not be converted";
    // For whoever reads the worker's stderr while debugging; the host never puts it in a reason.
    console.error(error instanceof DocumentProblem ? (error.cause ?? error.message) : error);
    await answer({ ok: false, reason });
  }
  // Parsers may leave streams or timers behind; the answer is written.
  process.exit(0);
}

await main();

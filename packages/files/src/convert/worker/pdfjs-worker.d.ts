// pdfjs ships no types for its worker module; the worker only hands it to pdfjs (globalThis.pdfjsWorker).
declare module "pdfjs-dist/legacy/build/pdf.worker.mjs" {
  export const WorkerMessageHandler: unknown;
}

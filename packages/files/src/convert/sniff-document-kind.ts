import type { DocumentKind } from "./worker/conversion-job.js";

/**
 * The kind of a document whose name has no known extension (accepted by its MIME type): a PDF by
 * its header, an Office package by the folder its main part sits in (the names are stored in the
 * clear in a ZIP), HTML by a leading tag; undefined otherwise.
 */
export function sniffDocumentKind(data: Buffer): DocumentKind | undefined {
  const head = data.subarray(0, 1024).toString("latin1");
  if (head.includes("%PDF-")) return "pdf";
  if (data.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]))) {
    if (data.includes("word/document.xml")) return "docx";
    if (data.includes("xl/workbook.xml")) return "xlsx";
    if (data.includes("ppt/presentation.xml")) return "pptx";
    return undefined;
  }
  if (/^\s*(<!doctype html|<html|<head|<body|<!--|<p[\s>]|<div[\s>])/i.test(head.replace(/^\uFEFF|^ï»¿/, ""))) return "html";
  return undefined;
}

import { XMLParser } from "fast-xml-parser";
import type { CheckedZip } from "./checked-zip.js";
import type { ConversionJob } from "./conversion-job.js";
import type { Converted } from "./converted.js";
import { DocumentProblem } from "./document-problem.js";
import { formatCount, MarkdownOutput } from "./markdown-output.js";

type OrderedNode = Record<string, unknown> & { ":@"?: Record<string, string> };

/**
 * A PowerPoint deck's text, slide by slide in the presentation's order (its slide list, else the
 * slide files' numbers): each paragraph of each shape on a line, tables' cells included. At most
 * `maxPages` slides.
 */
export function pptxToMarkdown(zip: CheckedZip, job: ConversionJob): Converted {
  const slides = slideOrder(zip);
  if (slides.length === 0 && !zip.text("ppt/presentation.xml")) throw new DocumentProblem("the file is not a PowerPoint presentation (PPTX)");
  const output = new MarkdownOutput(job.maxOutputBytes);
  const count = Math.min(slides.length, job.maxPages);
  for (let index = 0; index < count && !output.full; index++) {
    const xml = zip.text(slides[index]!) ?? "";
    output.add(`## Slide ${index + 1}\n\n${slideText(xml)}\n\n`);
  }
  if (slides.length > count) output.stopped(`stopped after ${formatCount(count)} slides of ${formatCount(slides.length)}`);
  return { output, summary: `PowerPoint presentation (PPTX), ${formatCount(slides.length)} slide${slides.length === 1 ? "" : "s"}` };
}

function parser(): XMLParser {
  return new XMLParser({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: "", processEntities: false, htmlEntities: false, trimValues: false, parseTagValue: false });
}

/** Refuses a DOCTYPE: OOXML parts never have one, and entity expansion is how an XML bomb grows. */
function parseXml(xml: string): OrderedNode[] {
  if (/<!DOCTYPE/i.test(xml)) throw new DocumentProblem("a part of the presentation declares a DOCTYPE, which OOXML never does");
  return parser().parse(xml) as OrderedNode[];
}

function slideOrder(zip: CheckedZip): string[] {
  const present = new Set(zip.names().filter((name) => /^ppt\/slides\/slide\d+\.xml$/.test(name)));
  const ordered: string[] = [];
  const presentation = zip.text("ppt/presentation.xml");
  const rels = zip.text("ppt/_rels/presentation.xml.rels");
  if (presentation && rels) {
    const targets = new Map<string, string>();
    walk(parseXml(rels), (name, attributes) => {
      if (name === "Relationship" && attributes.Id && attributes.Target) targets.set(attributes.Id, `ppt/${attributes.Target.replace(/^\/?(ppt\/)?/, "")}`);
    });
    walk(parseXml(presentation), (name, attributes) => {
      const target = name === "p:sldId" ? targets.get(attributes["r:id"] ?? "") : undefined;
      if (target && present.has(target) && !ordered.includes(target)) ordered.push(target);
    });
  }
  const rest = [...present].filter((name) => !ordered.includes(name)).sort((a, b) => slideNumber(a) - slideNumber(b));
  return [...ordered, ...rest];
}

function slideNumber(name: string): number {
  return Number(/(\d+)\.xml$/.exec(name)?.[1] ?? 0);
}

/** Every paragraph (`a:p`) of the slide on its own line: its runs' text (`a:t`), `a:br` as a line break. */
function slideText(xml: string): string {
  const lines: string[] = [];
  let line = "";
  const visit = (nodes: readonly OrderedNode[], inText: boolean): void => {
    for (const node of nodes) {
      for (const [name, value] of Object.entries(node)) {
        if (name === ":@") continue;
        if (name === "#text") {
          if (inText) line += String(value);
          continue;
        }
        if (name === "a:br") line += "\n";
        if (Array.isArray(value)) visit(value as OrderedNode[], name === "a:t");
        if (name === "a:p") {
          if (line.trim() !== "") lines.push(decodeEntities(line.trim()));
          line = "";
        }
      }
    }
  };
  visit(parseXml(xml), false);
  if (line.trim() !== "") lines.push(decodeEntities(line.trim()));
  return lines.join("\n");
}

/** XML's five entities and numeric references (the parser leaves them, so no DOCTYPE entity is ever expanded). */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_all, entity: string) => {
    const lower = entity.toLowerCase();
    if (lower.startsWith("#x")) return safeCodePoint(parseInt(lower.slice(2), 16));
    if (lower.startsWith("#")) return safeCodePoint(parseInt(lower.slice(1), 10));
    return ({ amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" } as Record<string, string>)[lower] ?? "";
  });
}

function safeCodePoint(code: number): string {
  return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "";
}

function walk(nodes: readonly OrderedNode[], visit: (name: string, attributes: Record<string, string>) => void): void {
  for (const node of nodes) {
    for (const [name, value] of Object.entries(node)) {
      if (name === ":@" || name === "#text") continue;
      visit(name, node[":@"] ?? {});
      if (Array.isArray(value)) walk(value as OrderedNode[], visit);
    }
  }
}

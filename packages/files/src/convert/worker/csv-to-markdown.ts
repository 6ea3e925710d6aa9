import { parse } from "csv-parse";
import type { ConversionJob } from "./conversion-job.js";
import type { Converted } from "./converted.js";
import { DocumentProblem } from "./document-problem.js";
import { formatCount, MarkdownOutput, tableRow, tableRule } from "./markdown-output.js";

const candidates = [",", ";", "\t", "|"] as const;

/**
 * A CSV (or TSV) file as one Markdown table, the first record as its header. The delimiter is
 * sniffed from the first lines; reading stops after `maxCells` cells (the table says so).
 */
export async function csvToMarkdown(data: Uint8Array, job: ConversionJob): Promise<Converted> {
  const text = new TextDecoder().decode(data);
  const delimiter = sniffDelimiter(text);
  const parser = parse({ delimiter, bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: true });
  parser.end(text);
  const output = new MarkdownOutput(job.maxOutputBytes);
  let cells = 0;
  let rows = 0;
  let width = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (cells + record.length > job.maxCells) {
        output.stopped(`stopped after ${formatCount(cells)} cells (${formatCount(rows)} rows); the file has more`);
        break;
      }
      cells += record.length;
      rows += 1;
      if (rows === 1) {
        width = record.length;
        if (!output.add(tableRow(record) + tableRule(width))) break;
      } else if (!output.add(tableRow(record))) break;
    }
  } catch {
    if (rows === 0) throw new DocumentProblem("the file is not readable as CSV");
    output.stopped(`stopped at row ${formatCount(rows + 1)}, which is not valid CSV`);
  } finally {
    parser.destroy();
  }
  const name = delimiter === "\t" ? "tab" : delimiter === "," ? "comma" : `"${delimiter}"`;
  return { output, summary: `CSV, ${formatCount(rows)} rows of ${formatCount(width)} columns read, ${name}-separated` };
}

/**
 * The delimiter that splits the first lines (up to 20, outside quotes) most consistently into more
 * than one field; a comma when none does.
 */
export function sniffDelimiter(text: string): string {
  const lines = firstLines(text, 20);
  let best: { delimiter: string; score: number } = { delimiter: ",", score: 0 };
  for (const delimiter of candidates) {
    const counts = lines.map((line) => countOutsideQuotes(line, delimiter));
    const first = counts[0] ?? 0;
    if (first === 0) continue;
    const consistent = counts.filter((count) => count === first).length;
    const score = consistent * 1000 + first;
    if (score > best.score) best = { delimiter, score };
  }
  return best.delimiter;
}

function firstLines(text: string, count: number): string[] {
  const lines: string[] = [];
  let start = 0;
  while (lines.length < count && start < text.length && start < 65_536) {
    const end = text.indexOf("\n", start);
    const line = text.slice(start, end === -1 ? Math.min(text.length, start + 65_536) : end);
    if (line.trim() !== "") lines.push(line);
    if (end === -1) break;
    start = end + 1;
  }
  return lines;
}

function countOutsideQuotes(line: string, delimiter: string): number {
  let inQuotes = false;
  let count = 0;
  for (const character of line) {
    if (character === '"') inQuotes = !inQuotes;
    else if (!inQuotes && character === delimiter) count += 1;
  }
  return count;
}

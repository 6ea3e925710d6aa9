import ExcelJS from "exceljs";
import type { ConversionJob } from "./conversion-job.js";
import type { Converted } from "./converted.js";
import { DocumentProblem } from "./document-problem.js";
import { formatCount, MarkdownOutput, tableRow, tableRule } from "./markdown-output.js";

/** Columns shown per row; a sheet wider than this is cut (and says so). */
const maxColumns = 256;

/**
 * An Excel workbook, each sheet as a Markdown table (its first row as the header), loaded whole
 * with exceljs from the document in memory, and written out until `maxCells` cells (the output
 * says so). Not exceljs's streaming reader: on Deno its unzip stream could end before the
 * workbook's last entry under load, and the workbook read as unreadable. What loading costs is
 * bounded by the ZIP checks before (entry sizes, ratio) and the worker's memory cap.
 */
export async function xlsxToMarkdown(data: Uint8Array, job: ConversionJob): Promise<Converted> {
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(Buffer.from(data.buffer, data.byteOffset, data.byteLength) as unknown as ArrayBuffer);
  } catch (error) {
    throw new DocumentProblem("the file is not a readable Excel workbook (XLSX)", { cause: error });
  }
  const output = new MarkdownOutput(job.maxOutputBytes);
  let cells = 0;
  let sheets = 0;
  let stop = false;
  let wide = false;
  for (const sheet of workbook.worksheets) {
    sheets += 1;
    // A crafted workbook may name a sheet with anything: one line, at most 100 characters.
    const name = sheet.name.replace(/[\r\n]+/g, " ").slice(0, 100);
    if (!output.add(`## Sheet: ${name}\n\n`)) break;
    let rows = 0;
    for (let index = 1; index <= sheet.rowCount; index++) {
      // findRow: a row the sheet does not have stays absent (getRow would make it).
      const row = sheet.findRow(index);
      if (!row?.hasValues) continue;
      const values = rowValues(row.values);
      if (values.length > maxColumns) {
        wide = true;
        values.length = maxColumns;
      }
      if (cells + values.length > job.maxCells) {
        output.stopped(`stopped after ${formatCount(cells)} cells (in sheet "${name}"); the workbook has more`);
        stop = true;
        break;
      }
      cells += values.length;
      rows += 1;
      const line = rows === 1 ? tableRow(values) + tableRule(values.length) : tableRow(values);
      if (!output.add(line)) {
        stop = true;
        break;
      }
    }
    if (stop) break;
    if (rows === 0) output.add("(empty sheet)\n");
    if (!output.add("\n")) break;
  }
  if (wide) output.stopped(`rows wider than ${maxColumns} columns were cut`);
  return { output, summary: `Excel workbook (XLSX), ${formatCount(sheets)} sheet${sheets === 1 ? "" : "s"} read, ${formatCount(cells)} cells` };
}

/** A row's cells as text, from exceljs's 1-based sparse array of values. */
function rowValues(values: unknown): string[] {
  if (!Array.isArray(values)) return [];
  const cells: string[] = [];
  for (let index = 1; index < values.length; index++) cells.push(cellText(values[index]));
  return cells;
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "" : value.toISOString().replace(/T00:00:00\.000Z$/, "");
  if (typeof value !== "object") return String(value);
  const cell = value as { richText?: { text?: string }[]; text?: unknown; result?: unknown; formula?: string; error?: string; sharedFormula?: string };
  if (Array.isArray(cell.richText)) return cell.richText.map((part) => part.text ?? "").join("");
  if (cell.formula !== undefined || cell.sharedFormula !== undefined) return cellText(cell.result);
  if (cell.text !== undefined) return cellText(cell.text);
  if (cell.error !== undefined) return String(cell.error);
  return "";
}

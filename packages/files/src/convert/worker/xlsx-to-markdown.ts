import { Readable } from "node:stream";
import ExcelJS from "exceljs";
import type { ConversionJob } from "./conversion-job.js";
import type { Converted } from "./converted.js";
import { DocumentProblem } from "./document-problem.js";
import { formatCount, MarkdownOutput, tableRow, tableRule } from "./markdown-output.js";

/** Columns shown per row; a sheet wider than this is cut (and says so). */
const maxColumns = 256;

interface SheetNames {
  readonly model?: { readonly sheets?: readonly { readonly name?: string; readonly rId?: string }[] };
  readonly workbookRels?: readonly { readonly Id?: string; readonly Target?: string }[];
}

/**
 * An Excel workbook, each sheet as a Markdown table (its first row as the header), read with
 * exceljs's streaming reader: rows arrive one at a time, so a huge sheet costs no more than the
 * cells read, and reading stops after `maxCells` cells (the output says so).
 */
export async function xlsxToMarkdown(data: Uint8Array, job: ConversionJob): Promise<Converted> {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([data]), {
    worksheets: "emit",
    sharedStrings: "cache",
    hyperlinks: "ignore",
    styles: "ignore",
    entries: "ignore",
  });
  const output = new MarkdownOutput(job.maxOutputBytes);
  let cells = 0;
  let sheets = 0;
  let stop = false;
  let wide = false;
  try {
    for await (const sheet of reader) {
      sheets += 1;
      const name = sheetName(reader as unknown as SheetNames, sheet as unknown as { id: string; name: string });
      if (!output.add(`## Sheet: ${name}\n\n`)) break;
      let rows = 0;
      for await (const row of sheet) {
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
  } catch (error) {
    if (sheets === 0 && cells === 0) throw new DocumentProblem("the file is not a readable Excel workbook (XLSX)", { cause: error });
    output.stopped("stopped at a part of the workbook that could not be read");
  }
  if (wide) output.stopped(`rows wider than ${maxColumns} columns were cut`);
  return { output, summary: `Excel workbook (XLSX), ${formatCount(sheets)} sheet${sheets === 1 ? "" : "s"} read, ${formatCount(cells)} cells` };
}

/** The sheet's name from the workbook (exceljs's reader only knows `Sheet<n>`). */
function sheetName(reader: SheetNames, sheet: { id: string; name: string }): string {
  const rel = reader.workbookRels?.find((entry) => entry.Target?.replace(/^\/?(xl\/)?/, "") === `worksheets/sheet${sheet.id}.xml`);
  const named = rel && reader.model?.sheets?.find((entry) => entry.rId === rel.Id)?.name;
  // A crafted workbook may name a sheet with anything: one line, at most 100 characters.
  return (named || sheet.name).replace(/[\r\n]+/g, " ").slice(0, 100);
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

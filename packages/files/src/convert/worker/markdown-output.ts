const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Room kept for the first line and the truncation note, outside the body's budget. */
const reserveBytes = 2048;

/**
 * The Markdown of one document, bounded in bytes: `add` takes text until the budget is spent (the
 * last piece cut at a character boundary), then refuses more. `finish` puts the first line (what
 * the text was converted from) before the body and, when a bound stopped the conversion, a note
 * saying which after it.
 */
export class MarkdownOutput {
  readonly #parts: string[] = [];
  readonly #budget: number;
  #bytes = 0;
  #full = false;
  #stops: string[] = [];

  constructor(maxBytes: number) {
    this.#budget = Math.max(1024, maxBytes - reserveBytes);
  }

  /** True once the byte budget is spent. */
  get full(): boolean {
    return this.#full;
  }

  /** Appends text; false once nothing more fits (the caller stops reading). */
  add(text: string): boolean {
    if (this.#full) return false;
    const bytes = encoder.encode(text);
    if (this.#bytes + bytes.length <= this.#budget) {
      this.#parts.push(text);
      this.#bytes += bytes.length;
      return true;
    }
    const cut = decoder.decode(bytes.subarray(0, this.#budget - this.#bytes)).replace(/\uFFFD+$/, "");
    this.#parts.push(cut);
    this.#bytes += encoder.encode(cut).length;
    this.#full = true;
    this.stopped(`stopped at the output limit of ${formatBytes(this.#budget + reserveBytes)}`);
    return false;
  }

  /** Records why the conversion stopped early ("stopped after 500 pages of 812"). */
  stopped(reason: string): void {
    this.#stops.push(reason);
  }

  get truncated(): boolean {
    return this.#stops.length > 0;
  }

  /** The whole Markdown: `<!-- converted from NAME: SUMMARY[; truncated: WHY] -->`, the body, and the note. */
  finish(name: string, summary: string): string {
    const why = this.#stops.join("; ").slice(0, 500);
    const header = `<!-- converted from ${commentSafe(name)}: ${commentSafe(summary)}${why ? `; truncated: ${commentSafe(why)}` : ""} -->`;
    const body = this.#parts.join("").trim();
    const note = why ? `\n\n> [Truncated: ${why}.]` : "";
    return `${header}\n\n${body}${note}\n`;
  }
}

/** Text fit for inside an HTML comment: no "--", no line breaks, at most 200 characters. */
function commentSafe(text: string): string {
  return text.replace(/[\r\n]+/g, " ").replace(/-{2,}/g, "-").replace(/>/g, "›").slice(0, 200);
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}

/** Thousands separated, as people read counts: 200,000. */
export function formatCount(count: number): string {
  return count.toLocaleString("en-US");
}

/** One Markdown table row; pipes escaped, line breaks as <br>. */
export function tableRow(cells: readonly string[]): string {
  return `| ${cells.map(tableCell).join(" | ")} |\n`;
}

/** The row under a table's header. */
export function tableRule(width: number): string {
  return `|${" --- |".repeat(Math.max(1, width))}\n`;
}

function tableCell(text: string): string {
  return text.trim().replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r?\n|\r/g, "<br>");
}

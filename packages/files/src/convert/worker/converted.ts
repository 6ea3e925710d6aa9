import type { MarkdownOutput } from "./markdown-output.js";

/** A document read into Markdown, and what it was ("PDF, 12 pages") for the first line. */
export interface Converted {
  readonly output: MarkdownOutput;
  readonly summary: string;
}

import { Buffer } from "node:buffer";
import mammoth from "mammoth";
import type { ConversionJob } from "./conversion-job.js";
import type { Converted } from "./converted.js";
import { DocumentProblem } from "./document-problem.js";
import { htmlMarkdown } from "./html-to-markdown.js";
import { MarkdownOutput } from "./markdown-output.js";

/**
 * A Word document to Markdown: mammoth maps its styles to HTML (headings, lists, tables, links),
 * turndown makes that Markdown. Images are left out (their alt text kept): inlined, they would be
 * megabytes of base64 the model cannot read.
 */
export async function docxToMarkdown(data: Uint8Array, job: ConversionJob): Promise<Converted> {
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(data.buffer, data.byteOffset, data.byteLength) },
      { convertImage: mammoth.images.imgElement(async () => ({ src: "" })) },
    );
    html = result.value;
  } catch (error) {
    throw new DocumentProblem("the file is not a readable Word document (DOCX)", { cause: error });
  }
  const output = new MarkdownOutput(job.maxOutputBytes);
  output.add(htmlMarkdown(html));
  return { output, summary: "Word document (DOCX)" };
}

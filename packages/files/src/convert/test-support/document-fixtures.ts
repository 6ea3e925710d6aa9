// Test support (not exported): real documents made in the test, and a converter over a real sandbox.
import fs from "node:fs";
import path from "node:path";
import { buildZip, loadConfig } from "@thinktank/core";
import type { Config, SandboxBackend } from "@thinktank/core";
import { createSandboxExecutor } from "@thinktank/sandbox";
import type { SandboxExecutor } from "@thinktank/sandbox";
import { makeTempDir } from "@thinktank/testing";
import ExcelJS from "exceljs";
import { PDFDocument, PDFHexString, PDFString, StandardFonts, type PDFRef } from "pdf-lib";
import { createDocumentConverter, type DocumentConverter } from "../document-converter.js";

export interface ConverterFixture {
  readonly root: string;
  readonly config: Config;
  readonly executor: SandboxExecutor;
  readonly converter: DocumentConverter;
  /** How many programs the converter ran in the sandbox so far. */
  runs(): number;
  /** Writes a file under the fixture's folder and returns its path. */
  file(name: string, data: string | Uint8Array): string;
  cleanup(): Promise<void>;
}

/** A converter over a real executor of `backend`, with `files.conversion` overridden as given. */
export function converterFixture(backend: SandboxBackend, conversion: Partial<Config["files"]["conversion"]> = {}): ConverterFixture {
  const temp = makeTempDir("thinktank-convert-test-");
  // Reachable by the unprivileged sandbox user when the tests run as root.
  fs.chmodSync(temp.dir, 0o755);
  const loaded = loadConfig({ cwd: temp.dir, env: {} });
  const config: Config = {
    ...loaded,
    sandbox: { ...loaded.sandbox, backend, warm_pool_size: 0 },
    files: { ...loaded.files, conversion: { ...loaded.files.conversion, ...conversion } },
  };
  const executor = createSandboxExecutor({ config, searchPath: process.env.PATH, runtimeDir: path.join(temp.dir, "runtime") });
  let runs = 0;
  // The executor, counting runs (every other member is the executor's own, bound to it).
  const counting = new Proxy(executor, {
    get(target, key) {
      if (key === "run") return (request: Parameters<SandboxExecutor["run"]>[0]) => ((runs += 1), target.run(request));
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  const converter = createDocumentConverter({ config, executor: counting });
  const documents = path.join(temp.dir, "documents");
  fs.mkdirSync(documents);
  return {
    root: temp.dir,
    config,
    executor,
    converter,
    runs: () => runs,
    file(name, data) {
      const file = path.join(documents, name);
      fs.writeFileSync(file, data);
      return file;
    },
    cleanup: async () => {
      await executor.close();
      temp.cleanup();
    },
  };
}

/** A PDF with one page per text (Helvetica, one line each). */
export async function makePdf(pages: readonly string[]): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (const text of pages) {
    const page = document.addPage();
    page.drawText(text, { x: 50, y: 700, font, size: 12 });
  }
  return document.save();
}

/**
 * A PDF of a few kilobytes that no reader finishes: its page draws form XObject 1, which draws form
 * 2 twice, which draws form 3 twice, ... to `depth`: 2^depth leaves, none a circular reference
 * (which pdfjs detects), so pdfjs walks them all (depth 16 took it 22 s; 40 is days).
 */
export async function makeNestedFormsPdf(depth: number): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const page = document.addPage();
  page.drawText("nested", { x: 50, y: 700, font, size: 12 });
  const context = document.context;
  let inner: PDFRef | undefined;
  for (let level = depth; level >= 1; level--) {
    const ref = context.nextRef();
    const resources = context.obj(inner ? { XObject: { N: inner }, Font: { F: font.ref } } : { Font: { F: font.ref } });
    const content = inner ? "BT /F 12 Tf (x) Tj ET /N Do /N Do" : "BT /F 12 Tf (leaf) Tj ET";
    context.assign(ref, context.flateStream(content, { Type: "XObject", Subtype: "Form", BBox: [0, 0, 100, 100], Resources: resources }));
    inner = ref;
  }
  const name = page.node.newXObject("X", inner!);
  page.node.addContentStream(context.register(context.flateStream(`${name.asString()} Do`)));
  return document.save({ useObjectStreams: false });
}

/**
 * A PDF whose text is Chinese in a font that is not embedded (STSong-Light, Adobe-GB1) and encoded
 * with the predefined CMap UniGB-UCS2-H: a reader needs that CMap to get the text out.
 */
export async function makeCjkPdf(text: string): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const page = document.addPage();
  const context = document.context;
  const descriptor = context.obj({ Type: "FontDescriptor", FontName: "STSong-Light", Flags: 6, FontBBox: [-25, -254, 1000, 880], ItalicAngle: 0, Ascent: 880, Descent: -120, CapHeight: 880, StemV: 80 });
  const cidFont = context.obj({
    Type: "Font",
    Subtype: "CIDFontType0",
    BaseFont: "STSong-Light",
    CIDSystemInfo: { Registry: PDFString.of("Adobe"), Ordering: PDFString.of("GB1"), Supplement: 2 },
    FontDescriptor: context.register(descriptor),
  });
  const font = context.obj({ Type: "Font", Subtype: "Type0", BaseFont: "STSong-Light", Encoding: "UniGB-UCS2-H", DescendantFonts: [context.register(cidFont)] });
  const key = page.node.newFontDictionary("F", context.register(font));
  const codes = [...text].map((character) => character.codePointAt(0)!.toString(16).padStart(4, "0")).join("");
  page.node.addContentStream(context.register(context.flateStream(`BT ${key.asString()} 12 Tf 50 700 Td <${codes}> Tj ET`)));
  return document.save({ useObjectStreams: false });
}

/**
 * A PDF encrypted with the standard security handler (revision 2) under a password nobody knows:
 * its /Encrypt dictionary's keys match no password, the empty one included.
 */
export async function makeEncryptedPdf(): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  document.addPage().drawText("secret", { x: 50, y: 700, font, size: 12 });
  const context = document.context;
  const encrypt = context.obj({ Filter: "Standard", V: 1, R: 2, O: PDFHexString.of("11".repeat(32)), U: PDFHexString.of("22".repeat(32)), P: -4 });
  context.trailerInfo.Encrypt = context.register(encrypt);
  context.trailerInfo.ID = context.obj([PDFHexString.of("33".repeat(16)), PDFHexString.of("33".repeat(16))]);
  return document.save({ useObjectStreams: false });
}

/**
 * A one-page PDF whose content stream repeats a text operator `operations` times: small on disk
 * (deflated), slow for any reader that interprets it.
 */
export async function makeHeavyPdf(operations: number): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const page = document.addPage();
  page.drawText("start", { x: 50, y: 700, font, size: 12 });
  const fontName = page.node.normalizedEntries().Font.keys()[0]!.asString();
  const operator = `BT ${fontName} 12 Tf 50 650 Td (slow) Tj ET\n`;
  const body = Buffer.from(operator.repeat(operations), "latin1");
  const stream = document.context.flateStream(body);
  page.node.addContentStream(document.context.register(stream));
  return document.save({ useObjectStreams: false });
}

const contentTypes = (overrides: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>${overrides}</Types>`;

/** A minimal DOCX: a heading and paragraphs (word/document.xml is `documentXml` when given). */
export function makeDocx(heading: string, paragraphs: readonly string[], documentXml?: string | Buffer, declaredSize?: number): Buffer {
  const body = [
    `<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>${heading}</w:t></w:r></w:p>`,
    ...paragraphs.map((text) => `<w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`),
  ].join("");
  const document = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`;
  const styles = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style></w:styles>`;
  return buildZip([
    { name: "[Content_Types].xml", data: contentTypes('<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>') },
    { name: "_rels/.rels", data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>` },
    { name: "word/_rels/document.xml.rels", data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>` },
    { name: "word/styles.xml", data: styles },
    { name: "word/document.xml", data: documentXml ?? document, ...(declaredSize === undefined ? {} : { declaredSize }) },
  ]);
}

/**
 * A DOCX whose document.xml is `megabytes` MiB of zeros: deflated to about a thousandth of that, far
 * past any sane compression ratio. `declaredSize` makes its headers lie about the size.
 */
export function makeZipBombDocx(megabytes: number, declaredSize?: number): Buffer {
  const zeros = Buffer.alloc(megabytes * 1024 * 1024);
  return makeDocx("Bomb", ["boom"], zeros, declaredSize);
}

/** An XLSX made with exceljs's writer: one sheet per entry, rows of values. */
export async function makeXlsx(sheets: Readonly<Record<string, readonly (readonly (string | number)[])[]>>): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) {
    const sheet = workbook.addWorksheet(name);
    for (const row of rows) sheet.addRow([...row]);
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/**
 * An XML prologue whose DOCTYPE defines "billion laughs" entities (`&lol9;` expands to 10^9 "lol"s
 * in a parser that expands entities), for a part of an Office package.
 */
export function billionLaughs(root: string): string {
  const entities = ['<!ENTITY lol "lol">', ...Array.from({ length: 9 }, (_entity, index) => `<!ENTITY lol${index + 1} "${`&lol${index === 0 ? "" : index};`.repeat(10)}">`)].join("");
  return `<?xml version="1.0"?><!DOCTYPE ${root} [${entities}]>`;
}

/** A minimal PPTX: one slide per list of paragraphs, listed in presentation.xml in the given order (a slide's XML is `slideXmls[i]` when given). */
export function makePptx(slides: readonly (readonly string[])[], slideXmls: readonly (string | undefined)[] = []): Buffer {
  const p = "http://schemas.openxmlformats.org/presentationml/2006/main";
  const a = "http://schemas.openxmlformats.org/drawingml/2006/main";
  const r = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
  const slideXml = (paragraphs: readonly string[]) =>
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:sld xmlns:p="${p}" xmlns:a="${a}" xmlns:r="${r}"><p:cSld><p:spTree><p:sp><p:txBody>${paragraphs
      .map((text) => `<a:p><a:r><a:t>${text}</a:t></a:r></a:p>`)
      .join("")}</p:txBody></p:sp></p:spTree></p:cSld></p:sld>`;
  const ids = slides.map((_slide, index) => `<p:sldId id="${256 + index}" r:id="rId${index + 1}"/>`).join("");
  const rels = slides.map((_slide, index) => `<Relationship Id="rId${index + 1}" Type="${r}/slide" Target="slides/slide${index + 1}.xml"/>`).join("");
  return buildZip([
    { name: "[Content_Types].xml", data: contentTypes('<Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/>') },
    { name: "ppt/presentation.xml", data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:presentation xmlns:p="${p}" xmlns:r="${r}"><p:sldIdLst>${ids}</p:sldIdLst></p:presentation>` },
    { name: "ppt/_rels/presentation.xml.rels", data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels}</Relationships>` },
    ...slides.map((paragraphs, index) => ({ name: `ppt/slides/slide${index + 1}.xml`, data: slideXmls[index] ?? slideXml(paragraphs) })),
  ]);
}

import { describe, expect, it } from "vitest";
import { maxNameBytes, numberedName, safeFileName } from "./safe-file-name.js";

describe("safeFileName", () => {
  it("keeps a basename only, never a path", () => {
    expect(safeFileName("../../etc/passwd")).toBe("passwd");
    expect(safeFileName("/etc/shadow")).toBe("shadow");
    expect(safeFileName("C:\\Windows\\evil.exe")).toBe("evil.exe");
    expect(safeFileName("reports/2024/q3.csv")).toBe("q3.csv");
  });

  it("drops controls, bidi controls and invisible characters", () => {
    expect(safeFileName("nul\u0000byte.txt")).toBe("nulbyte.txt");
    expect(safeFileName("invoice\u202Efdp.exe")).toBe("invoicefdp.exe");
    expect(safeFileName("zero\u200Bwidth\uFEFF.txt")).toBe("zerowidth.txt");
    expect(safeFileName("tab\there\n.txt")).toBe("tabhere.txt");
    expect(safeFileName("soft\u00ADhyphen.txt")).toBe("softhyphen.txt");
  });

  it("replaces every look-alike of a separator or a dot, by rule (NFKC and character class)", () => {
    // slashes: division slash, full-width solidus, fraction slash, big solidus, box drawing, set minus
    for (const slash of ["\u2215", "\uFF0F", "\u2044", "\u29F8", "\u2571", "\u2216", "\uFE68", "\uFF3C"]) expect(safeFileName(`a${slash}b.txt`), slash).toBe("a_b.txt");
    // dots: one dot leader, two dot leader, full-width full stop, small full stop, ideographic full stop
    for (const dot of ["\u2024", "\u2025", "\uFF0E", "\uFE52", "\u3002"]) expect(safeFileName(`a${dot}b.txt`), dot).toMatch(/^a_+b\.txt$/);
    expect(safeFileName("\u2024\u2024")).toMatch(/^__$/);
    expect(safeFileName("x\uFF1Ay.txt")).toBe("x_y.txt"); // full-width colon
    expect(safeFileName('a:b*c?d"e<f>g|h.txt')).toBe("a_b_c_d_e_f_g_h.txt");
  });

  it("keeps ordinary names of every script, NFC", () => {
    expect(safeFileName("Résumé (final) – v2.pdf")).toBe("Résumé (final) – v2.pdf");
    expect(safeFileName("Re\u0301sume\u0301.pdf")).toBe("Résumé.pdf");
    expect(safeFileName("отчёт.docx")).toBe("отчёт.docx");
    expect(safeFileName("報告書.xlsx")).toBe("報告書.xlsx");
    expect(safeFileName("notes 📝.md")).toBe("notes 📝.md");
    expect(safeFileName("a\u00A0b.txt")).toBe("a b.txt");
  });

  it("never makes a hidden file, '.' or '..', and names what is left empty", () => {
    expect(safeFileName(".bashrc")).toBe("bashrc");
    expect(safeFileName("...pdf")).toBe("pdf");
    expect(safeFileName("trailing. . ")).toBe("trailing");
    for (const empty of ["", "..", ".", "/", "\u200B", "   ", "\u202E"]) expect(safeFileName(empty), JSON.stringify(empty)).toMatch(/^upload-[0-9a-f]{8}$/);
  });

  it("caps the length in UTF-8 bytes, keeping the extension and whole characters", () => {
    const long = safeFileName(`${"é".repeat(300)}.pdf`);
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(maxNameBytes);
    expect(long.endsWith("é.pdf")).toBe(true);
    expect(Buffer.byteLength(safeFileName("x".repeat(5000)))).toBe(maxNameBytes);
    // A thumb with its skin tone is one character of two code points: never cut between them.
    const emoji = safeFileName(`${"👍🏽".repeat(40)}.txt`);
    expect(Buffer.byteLength(emoji)).toBeLessThanOrEqual(maxNameBytes);
    expect(emoji.replace(/\.txt$/, "")).toMatch(/^(👍🏽)+$/u);
  });

  it("refuses what core's archive check refuses (a look-alike of a reserved name) by naming it anew", () => {
    expect(safeFileName("\u0405KILL.md")).toMatch(/^upload-[0-9a-f]{8}\.md$/);
  });
});

describe("numberedName", () => {
  it("numbers a taken name before its extension, within the cap", () => {
    const taken = new Set(["report.pdf", "report (1).pdf", "archive.tar.gz"]);
    expect(numberedName("report.pdf", (name) => taken.has(name))).toBe("report (2).pdf");
    expect(numberedName("archive.tar.gz", (name) => taken.has(name))).toBe("archive (1).tar.gz");
    expect(numberedName("fresh.txt", (name) => taken.has(name))).toBe("fresh.txt");
    const long = `${"x".repeat(maxNameBytes - 4)}.txt`;
    const next = numberedName(long, (name) => name === long);
    expect([Buffer.byteLength(next) <= maxNameBytes, next.endsWith(" (1).txt")]).toEqual([true, true]);
  });
});

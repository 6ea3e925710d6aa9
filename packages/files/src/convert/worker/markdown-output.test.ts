import { describe, expect, it } from "vitest";
import { sniffDelimiter } from "./csv-to-markdown.js";
import { MarkdownOutput, tableRow } from "./markdown-output.js";

describe("MarkdownOutput", () => {
  it("keeps what fits, cuts the last piece at a character boundary, and says why it stopped", () => {
    const output = new MarkdownOutput(2048 + 1024);
    expect(output.add("a".repeat(1022))).toBe(true);
    // Two-byte characters: only one more fits in the 1,024-byte budget, never half of one.
    expect(output.add("éé")).toBe(false);
    expect(output.add("more")).toBe(false);
    const markdown = output.finish("x.csv", "CSV");
    expect(markdown).toContain(`${"a".repeat(1022)}é\n`);
    expect(markdown).not.toContain("\uFFFD");
    expect(output.truncated).toBe(true);
    expect(markdown.split("\n")[0]).toBe("<!-- converted from x.csv: CSV; truncated: stopped at the output limit of 3 KiB -->");
    expect(markdown).toContain("> [Truncated: stopped at the output limit of 3 KiB.]");
    expect(Buffer.byteLength(markdown)).toBeLessThanOrEqual(2048 + 1024);
  });

  it("keeps a hostile name from closing the comment or adding lines", () => {
    const output = new MarkdownOutput(10_000);
    output.add("body");
    const first = output.finish("a-->\n<script>x</script>.pdf", "PDF").split("\n")[0];
    expect(first).toBe("<!-- converted from a-› <script›x</script›.pdf: PDF -->");
  });

  it("escapes pipes and line breaks in table cells", () => {
    expect(tableRow(["a|b", "line\nbreak", "back\\slash"])).toBe("| a\\|b | line<br>break | back\\\\slash |\n");
  });
});

describe("sniffDelimiter", () => {
  it("picks the delimiter that splits the first lines consistently, ignoring quoted ones", () => {
    expect(sniffDelimiter("a,b,c\n1,2,3\n")).toBe(",");
    expect(sniffDelimiter('name;amount\n"Smith, J";12,5\nBo;7\n')).toBe(";");
    expect(sniffDelimiter("a\tb\n1\t2\n")).toBe("\t");
    expect(sniffDelimiter("a|b|c\n1|2|3\n")).toBe("|");
    expect(sniffDelimiter("just one column\nof text\n")).toBe(",");
  });
});

import { describe, expect, it } from "vitest";
import { checkNameSegment } from "./check-name-segment.js";

function refusal(segment: string): unknown {
  try {
    checkNameSegment(segment, `skill/${segment}`);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("checkNameSegment", () => {
  it("names the offending character and the reserved name it imitates, escaped", () => {
    expect(refusal("\u0405KILL.md")).toMatchObject({
      code: "ARCHIVE_BAD_NAME",
      message: 'entry "skill/\\u{405}KILL.md" has the name part "\\u{405}KILL.md", which looks like the reserved name "SKILL.md" but is not it',
      details: { segment: "\\u{405}KILL.md" },
    });
    expect(refusal("evil\u202Egpj.md")).toMatchObject({ message: expect.stringContaining("contains U+202E, an invisible, control or text-direction character") });
    expect(refusal("\uFF0E\uFF0E")).toMatchObject({ message: expect.stringContaining('"\\u{FF0E}\\u{FF0E}", which reads as ".."') });
    expect(refusal("a\u0000b")).toMatchObject({ message: expect.stringContaining("contains U+0000") });
  });

  it("accepts the reserved names themselves, their ASCII case variants, and names NFKC changes into ordinary ones", () => {
    for (const segment of ["SKILL.md", "skill.md", ".claude-plugin", "Commands", "\uFB01le.md", "\u0421\u043A\u0438\u043B\u043B.md", "caf\u00E9.md"]) {
      expect(refusal(segment), segment).toBeUndefined();
    }
  });
});

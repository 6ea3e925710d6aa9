import { describe, expect, it } from "vitest";
import { revealBidi } from "./reveal-bidi.js";

describe("revealBidi", () => {
  it("shows bidi overrides, isolates, marks and invisible characters as escapes", () => {
    expect(revealBidi("report\u202Etxt.exe")).toBe("report\\u202Etxt.exe");
    expect(revealBidi("a\u2066b\u2069c\u200Bd\u200Fe\uFEFF\u061C")).toBe("a\\u2066b\\u2069c\\u200Bd\\u200Fe\\uFEFF\\u061C");
  });

  it("leaves other text alone, right-to-left scripts included", () => {
    expect(revealBidi("plain name – ok")).toBe("plain name – ok");
    expect(revealBidi("שלום مرحبا")).toBe("שלום مرحبا");
  });
});

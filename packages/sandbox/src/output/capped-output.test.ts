import { describe, expect, it } from "vitest";
import { CappedOutput } from "./capped-output.js";

describe("CappedOutput", () => {
  it("returns everything under the cap, without a marker", () => {
    const output = new CappedOutput(10);
    output.push(Buffer.from("hello"));
    expect(output.text()).toBe("hello");
    expect(output.truncated).toBe(false);
  });

  it("keeps the head, counts the rest and says how much was cut", () => {
    const output = new CappedOutput(5);
    output.push(Buffer.from("abc"));
    output.push(Buffer.from("defgh"));
    output.push(Buffer.alloc(20_000, "x"));
    expect(output.totalBytes).toBe(20_008);
    expect(output.truncated).toBe(true);
    expect(output.text()).toBe("abcde\n[... truncated 20,003 bytes ...]");
    expect(output.text("program stopped")).toBe("abcde\n[... truncated 20,003 bytes; program stopped ...]");
  });

  it("never splits a multi-byte character at the cut", () => {
    const output = new CappedOutput(4);
    output.push(Buffer.from("ab€€")); // € is 3 bytes: the cut falls inside the first one
    expect(output.text()).toBe("ab\n[... truncated 6 bytes ...]");
    const exact = new CappedOutput(5);
    exact.push(Buffer.from("ab€x"));
    expect(exact.text()).toBe("ab€\n[... truncated 1 byte ...]");
  });
});

import { describe, expect, it } from "vitest";
import { validateExecuteInput } from "./validate-execute-input.js";

const bounds = { defaultTimeoutSeconds: 30, maxTimeoutSeconds: 300, maxCodeBytes: 1000 };

describe("validateExecuteInput", () => {
  it("applies the defaults and caps the timeout at max_timeout_seconds", () => {
    expect(validateExecuteInput({ code: "console.log(1)" }, bounds)).toEqual({ ok: true, code: "console.log(1)", language: "typescript", timeoutMs: 30_000 });
    expect(validateExecuteInput({ code: "print(1)", language: "python", timeout: 2.5 }, bounds)).toMatchObject({ language: "python", timeoutMs: 2500 });
    expect(validateExecuteInput({ code: "x", timeout: 10_000 }, bounds)).toMatchObject({ ok: true, timeoutMs: 300_000 });
  });

  it.each([
    [null, "expected an object"],
    [{ code: "" }, "code: expected the program's source text, got \"\""],
    [{ code: 42 }, "code: expected the program's source text, got 42"],
    [{ code: "x".repeat(1001) }, "code: 1001 bytes is more than the 1000 allowed"],
    [{ code: "x", language: "ruby" }, 'language: expected one of typescript, javascript, python, got "ruby"'],
    [{ code: "x", timeout: 0 }, "timeout: expected a positive number of seconds, got 0"],
    [{ code: "x", timeout: "10" }, 'timeout: expected a positive number of seconds, got "10"'],
  ])("refuses %j", (input, message) => {
    const result = validateExecuteInput(input, bounds);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toContain(message);
  });
});

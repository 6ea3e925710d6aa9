import { ThinktankError } from "../errors/thinktank-error.js";

export interface JsonLocation {
  /** 1-based line and column (columns count UTF-16 code units, as editors mostly do). */
  readonly line: number;
  readonly column: number;
}

/**
 * JSON.parse with a usable error: a STORE_CORRUPT ThinktankError whose message reads
 * `<file>:<line>:<column>: not valid JSON: <reason>`, with the same values in `details`.
 * A leading byte-order mark is ignored (some editors write one).
 */
export function parseJsonDocument(text: string, file: string): unknown {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  try {
    return JSON.parse(body);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const offset = errorOffset(reason, body);
    const { line, column } = locationOf(body, offset);
    const shortReason = reason
      .replace(/ in JSON at position \d+.*$/s, "")
      .replace(/, ".*" is not valid JSON$/s, "")
      .replace(/[\u0000-\u001f]/g, (char) => JSON.stringify(char).slice(1, -1));
    throw new ThinktankError("STORE_CORRUPT", `${file}:${line}:${column}: not valid JSON: ${shortReason}`, {
      cause: error,
      details: { file, line, column, reason: shortReason },
    });
  }
}

/** The offset V8 reports ("at position N"); when a message has none, our own scan finds it. */
function errorOffset(reason: string, text: string): number {
  const reported = /at position (\d+)/.exec(reason);
  if (reported) return Number(reported[1]);
  return scanForError(text);
}

/** 1-based line and column of a character offset. */
export function locationOf(text: string, offset: number): JsonLocation {
  const clamped = Math.max(0, Math.min(offset, text.length));
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < clamped; index++) {
    if (text.charCodeAt(index) === 10) {
      line++;
      lineStart = index + 1;
    }
  }
  return { line, column: clamped - lineStart + 1 };
}

/**
 * Offset of the first character where `text` stops being JSON (text.length when it ends too
 * early). Only called after JSON.parse failed, for the messages that carry no position.
 */
export function scanForError(text: string): number {
  let index = 0;
  const fail = (): never => {
    throw new ScanStop(index);
  };
  const skipSpace = (): void => {
    while (index < text.length && " \t\n\r".includes(text[index] as string)) index++;
  };
  const literal = (word: string): void => {
    for (const char of word) {
      if (text[index] !== char) fail();
      index++;
    }
  };
  const string = (): void => {
    index++; // opening quote
    while (index < text.length) {
      const char = text.charCodeAt(index);
      if (char === 34) {
        index++;
        return;
      }
      if (char < 32) fail();
      if (char === 92) {
        index++;
        const escape = text[index];
        if (escape === "u") {
          for (let digit = 1; digit <= 4; digit++) if (!/[0-9a-fA-F]/.test(text[index + digit] ?? "")) fail();
          index += 5;
          continue;
        }
        if (escape === undefined || !'"\\/bfnrt'.includes(escape)) fail();
      }
      index++;
    }
    fail();
  };
  const number = (): void => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(index, index + 400));
    if (!match) {
      if (text[index] === "-") index++;
      fail();
    }
    index += (match as RegExpExecArray)[0].length;
  };
  const value = (): void => {
    skipSpace();
    const char = text[index];
    if (char === "{") {
      index++;
      skipSpace();
      if (text[index] === "}") return void index++;
      for (;;) {
        skipSpace();
        if (text[index] !== '"') fail();
        string();
        skipSpace();
        if (text[index] !== ":") fail();
        index++;
        value();
        skipSpace();
        if (text[index] === ",") {
          index++;
          continue;
        }
        if (text[index] === "}") return void index++;
        fail();
      }
    }
    if (char === "[") {
      index++;
      skipSpace();
      if (text[index] === "]") return void index++;
      for (;;) {
        value();
        skipSpace();
        if (text[index] === ",") {
          index++;
          continue;
        }
        if (text[index] === "]") return void index++;
        fail();
      }
    }
    if (char === '"') return string();
    if (char === "t") return literal("true");
    if (char === "f") return literal("false");
    if (char === "n") return literal("null");
    if (char === "-" || (char !== undefined && char >= "0" && char <= "9")) return number();
    fail();
  };
  try {
    value();
    skipSpace();
    return index < text.length ? index : text.length;
  } catch (error) {
    if (error instanceof ScanStop) return error.offset;
    throw error;
  }
}

class ScanStop {
  constructor(readonly offset: number) {}
}

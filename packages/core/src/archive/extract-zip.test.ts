import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ThinktankError } from "../errors/thinktank-error.js";
import { defaultArchiveLimits } from "./archive-limits.js";
import type { ArchiveLimits } from "./archive-limits.js";
import { buildZip } from "./build-zip.js";
import type { ZipEntrySpec } from "./build-zip.js";
import { extractZip } from "./extract-zip.js";

const mebibyte = 1024 * 1024;
// core sits below @thinktank/testing, so its tests make temp folders themselves.
let temp: { dir: string };
beforeEach(() => {
  temp = { dir: fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tt-archive-"))) };
});
afterEach(() => fs.rmSync(temp.dir, { recursive: true, force: true }));

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ThinktankError) return error.code;
    throw error;
  }
  throw new Error("expected a refusal, but the archive was accepted");
}

/** Extracts and expects a refusal with `code`, and nothing left in the temp folder. */
async function expectRefused(entries: readonly ZipEntrySpec[] | Buffer, code: string, limits: ArchiveLimits = defaultArchiveLimits): Promise<void> {
  const archive = Buffer.isBuffer(entries) ? entries : buildZip(entries);
  const destination = path.join(temp.dir, "out");
  expect(await codeOf(extractZip(archive, destination, { limits }))).toBe(code);
  expect(fs.readdirSync(temp.dir)).toEqual([]);
}

describe("extractZip", () => {
  it("extracts files and folders, keeps the executable bit, and skips what it is told to", async () => {
    const archive = buildZip([
      { name: "skill/" },
      { name: "skill/SKILL.md", data: "---\nname: skill\n---\n" },
      { name: "skill/scripts/run.sh", data: "#!/bin/sh\necho hi\n", unixMode: 0o100755 },
      { name: "skill/notes.txt", data: "stored", method: "store" },
      { name: "__MACOSX/skill/._SKILL.md", data: "apple" },
    ]);
    const destination = path.join(temp.dir, "out");
    const result = await extractZip(archive, destination, { skip: (segments) => segments[0] === "__MACOSX" });
    expect(result.files).toEqual(["skill/SKILL.md", "skill/scripts/run.sh", "skill/notes.txt"]);
    expect(result.skipped).toEqual(["__MACOSX/skill/._SKILL.md"]);
    expect(fs.readFileSync(path.join(destination, "skill/SKILL.md"), "utf8")).toBe("---\nname: skill\n---\n");
    expect(fs.readFileSync(path.join(destination, "skill/notes.txt"), "utf8")).toBe("stored");
    expect(fs.statSync(path.join(destination, "skill/scripts/run.sh")).mode & 0o777).toBe(0o755);
    expect(fs.statSync(path.join(destination, "skill/SKILL.md")).mode & 0o777).toBe(0o644);
    expect(fs.existsSync(path.join(destination, "__MACOSX"))).toBe(false);
    expect(result.bytes).toBe(Buffer.byteLength("---\nname: skill\n---\n") + Buffer.byteLength("#!/bin/sh\necho hi\n") + 6);
  });

  it("reads an archive from a file path", async () => {
    const file = path.join(temp.dir, "a.zip");
    fs.writeFileSync(file, buildZip([{ name: "a.txt", data: "A" }]));
    const result = await extractZip(file, path.join(temp.dir, "out"));
    expect(result.files).toEqual(["a.txt"]);
  });

  it("refuses '..' anywhere in a name", async () => {
    await expectRefused([{ name: "../evil.txt", data: "x" }], "ARCHIVE_PATH_TRAVERSAL");
    await expectRefused([{ name: "ok/../../evil.txt", data: "x" }], "ARCHIVE_PATH_TRAVERSAL");
  });

  it("refuses absolute names", async () => {
    await expectRefused([{ name: "/etc/cron.d/evil", data: "x" }], "ARCHIVE_ABSOLUTE_PATH");
  });

  it("refuses symbolic link entries", async () => {
    await expectRefused([{ name: "link", data: "/etc/passwd", unixMode: 0o120777 }], "ARCHIVE_SYMLINK");
  });

  it("refuses FIFO, device and socket entries", async () => {
    await expectRefused([{ name: "fifo", unixMode: 0o010644 }], "ARCHIVE_SPECIAL_FILE");
    await expectRefused([{ name: "tty", unixMode: 0o020644 }], "ARCHIVE_SPECIAL_FILE");
    await expectRefused([{ name: "disk", unixMode: 0o060644 }], "ARCHIVE_SPECIAL_FILE");
    await expectRefused([{ name: "socket", unixMode: 0o140644 }], "ARCHIVE_SPECIAL_FILE");
  });

  it("refuses names with ':', backslashes or NUL bytes", async () => {
    await expectRefused([{ name: "c:evil.txt", data: "x" }], "ARCHIVE_BAD_NAME");
    await expectRefused([{ name: "..\\..\\evil.txt", data: "x" }], "ARCHIVE_BAD_NAME");
    await expectRefused([{ name: Buffer.from("a\u0000b.txt"), data: "x" }], "ARCHIVE_BAD_NAME");
  });

  it.each([
    ["a right-to-left override", "skill/evil\u202Egpj.md"],
    ["a left-to-right isolate", "skill/\u2066notes.md"],
    ["an Arabic letter mark", "skill/a\u061Cb.md"],
    ["a zero-width joiner", "skill/a\u200Db.md"],
    ["a byte order mark", "\uFEFFskill/SKILL.md"],
    ["a C1 control", "skill/c\u009Bd.md"],
    ["a full-width '..'", "skill/\uFF0E\uFF0E/evil.md"],
    ["a two-dot leader", "skill/\u2025/evil.md"],
    ["a full-width '/'", "skill/\uFF0E\uFF0E\uFF0Fevil.md"],
    ["a division slash", "skill/a\u2215b.md"],
    ["a Cyrillic look-alike of SKILL.md", "skill/\u0405KILL.md"],
    ["a Greek look-alike of plugin.json", "p/.claude-plugin/plugin.js\u03BFn"],
    ["a full-width look-alike of commands", "p/\uFF43ommands/x.md"],
  ])("refuses a name with %s, naming the character escaped", async (_case, name) => {
    const archive = buildZip([{ name, data: "x" }]);
    const error = await extractZip(archive, path.join(temp.dir, "out")).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "ARCHIVE_BAD_NAME", message: expect.stringMatching(/\\u\{[0-9A-F]+\}/) });
    expect(fs.readdirSync(temp.dir)).toEqual([]);
  });

  it("accepts Cyrillic, Greek and other names that only look foreign, not like a reserved name", async () => {
    const names = ["skill/\u0437\u0430\u043C\u0435\u0442\u043A\u0438.md", "skill/\u03B1\u03B2\u03B3.txt", "skill/\u6587\u4EF6.md", "skill/Skills/SKILL.md"];
    const result = await extractZip(buildZip(names.map((name) => ({ name, data: "x" }))), path.join(temp.dir, "out"));
    expect(result.files).toEqual(names);
  });

  it("refuses the same path twice, and a path that is both file and folder", async () => {
    await expectRefused(
      [
        { name: "a/b.txt", data: "1" },
        { name: "a//b.txt", data: "2" },
      ],
      "ARCHIVE_BAD_NAME",
    );
    await expectRefused(
      [
        { name: "a", data: "file" },
        { name: "a/b.txt", data: "2" },
      ],
      "ARCHIVE_BAD_NAME",
    );
  });

  it("refuses more entries than the limit, before extracting any", async () => {
    const entries = Array.from({ length: 4097 }, (_, i) => ({ name: `f${i}.txt`, data: "x" }));
    await expectRefused(entries, "ARCHIVE_TOO_MANY_ENTRIES");
    // Exactly at the limit is fine.
    const result = await extractZip(buildZip(entries.slice(0, 4096)), path.join(temp.dir, "ok"));
    expect(result.files).toHaveLength(4096);
  });

  it("refuses a zip bomb by compression ratio", async () => {
    await expectRefused([{ name: "zeros.bin", data: Buffer.alloc(40 * mebibyte) }], "ARCHIVE_COMPRESSION_RATIO");
  });

  it("refuses a zip bomb by ratio counted while inflating when the header lies about the size", async () => {
    await expectRefused([{ name: "zeros.bin", data: Buffer.alloc(40 * mebibyte), declaredSize: 1000 }], "ARCHIVE_COMPRESSION_RATIO");
  });

  it("refuses a zip bomb by ratio spread over many small entries", async () => {
    const entries = Array.from({ length: 40 }, (_, i) => ({ name: `z${i}.bin`, data: Buffer.alloc(512 * 1024) }));
    await expectRefused(entries, "ARCHIVE_COMPRESSION_RATIO");
  });

  it("counts the real bytes: a total over the limit is refused even when the headers claim tiny sizes", async () => {
    const limits = { ...defaultArchiveLimits, maxTotalBytes: 5 * mebibyte };
    const entries = Array.from({ length: 4 }, (_, i) => ({ name: `r${i}.bin`, data: crypto.randomBytes(1.5 * mebibyte), declaredSize: 10 }));
    await expectRefused(entries, "ARCHIVE_TOO_LARGE", limits);
  });

  it("counts the real bytes of one file against the per-file limit whatever it declares", async () => {
    const limits = { ...defaultArchiveLimits, maxFileBytes: mebibyte };
    await expectRefused([{ name: "big.bin", data: crypto.randomBytes(2 * mebibyte), declaredSize: 100 }], "ARCHIVE_TOO_LARGE", limits);
    await expectRefused([{ name: "big.bin", data: crypto.randomBytes(2 * mebibyte), method: "store", declaredSize: 100 }], "ARCHIVE_TOO_LARGE", limits);
  });

  it("refuses early on honest declared sizes over the limits", async () => {
    const limits = { ...defaultArchiveLimits, maxTotalBytes: 3 * mebibyte };
    await expectRefused(
      Array.from({ length: 4 }, (_, i) => ({ name: `r${i}.bin`, data: crypto.randomBytes(mebibyte) })),
      "ARCHIVE_TOO_LARGE",
      limits,
    );
  });

  it("refuses files that are not zips", async () => {
    await expectRefused(Buffer.from("just some text, not an archive"), "ARCHIVE_NOT_ZIP");
    await expectRefused(Buffer.alloc(0), "ARCHIVE_NOT_ZIP");
    const truncated = buildZip([{ name: "a.txt", data: "hello world" }]).subarray(0, 40);
    await expectRefused(truncated, "ARCHIVE_NOT_ZIP");
  });

  it("refuses entries whose size or CRC does not match their content", async () => {
    await expectRefused([{ name: "a.txt", data: "hello", declaredSize: 9 }], "ARCHIVE_CORRUPT");
    await expectRefused([{ name: "a.txt", data: "hello", crc: 1234 }], "ARCHIVE_CORRUPT");
  });

  it("leaves nothing behind when a later entry fails after earlier ones were written", async () => {
    await expectRefused(
      [
        { name: "good/one.txt", data: "1" },
        { name: "good/two.txt", data: "2" },
        { name: "bad.txt", data: "hello", crc: 99 },
      ],
      "ARCHIVE_CORRUPT",
    );
  });
});

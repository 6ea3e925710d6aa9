import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultArchiveLimits } from "./archive-limits.js";
import { buildTarGz } from "./build-tar-gz.js";
import { extractTarGz } from "./extract-tar-gz.js";

let dir: string;
let destination: string;
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tt-tar-")));
  destination = path.join(dir, "out");
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("extractTarGz", () => {
  it("extracts a tarball made by the system tar (long names through pax or GNU headers), keeping the executable bit", async () => {
    const source = path.join(dir, "package");
    const long = `${"deep/".repeat(30)}file.md`;
    fs.mkdirSync(path.join(source, path.dirname(long)), { recursive: true });
    fs.writeFileSync(path.join(source, long), "long");
    fs.writeFileSync(path.join(source, "run.sh"), "#!/bin/sh\n", { mode: 0o755 });
    fs.writeFileSync(path.join(source, "package.json"), "{}");
    const file = path.join(dir, "p.tgz");
    execFileSync("tar", ["-czf", file, "-C", dir, "package"]);
    const result = await extractTarGz(fs.readFileSync(file), destination);
    expect([...result.files].sort()).toEqual([`package/${long}`, "package/package.json", "package/run.sh"]);
    expect(fs.readFileSync(path.join(destination, "package", long), "utf8")).toBe("long");
    expect(fs.statSync(path.join(destination, "package", "run.sh")).mode & 0o777).toBe(0o755);
  });

  it.each([
    ["a symbolic link", [{ name: "package/passwd", type: "2", linkName: "/etc/passwd" }], "ARCHIVE_SYMLINK"],
    ["a hard link", [{ name: "package/passwd", type: "1", linkName: "/etc/passwd" }], "ARCHIVE_HARD_LINK"],
    ["a FIFO", [{ name: "package/pipe", type: "6" }], "ARCHIVE_SPECIAL_FILE"],
    ["a '..' entry", [{ name: "package/../../evil", data: "x" }], "ARCHIVE_PATH_TRAVERSAL"],
    ["an absolute entry", [{ name: "/tmp/evil", data: "x" }], "ARCHIVE_ABSOLUTE_PATH"],
    ["a look-alike name", [{ name: "package/\u0405KILL.md", data: "x" }], "ARCHIVE_BAD_NAME"],
    ["a name listed twice", [{ name: "package/a", data: "1" }, { name: "package/a", data: "2" }], "ARCHIVE_BAD_NAME"],
  ] as const)("refuses %s (%s) and leaves nothing behind", async (_label, entries, code) => {
    await expect(extractTarGz(buildTarGz(entries), destination)).rejects.toMatchObject({ code });
    expect(fs.existsSync(destination)).toBe(false);
    expect(fs.existsSync(path.join(dir, "evil"))).toBe(false);
  });

  it("caps what it inflates: a bomb, too many bytes, too many entries, not a tarball", async () => {
    const bomb = buildTarGz([{ name: "package/zeros", data: Buffer.alloc(64 * 1024 * 1024) }]);
    await expect(extractTarGz(bomb, destination)).rejects.toMatchObject({ code: "ARCHIVE_COMPRESSION_RATIO" });
    const big = buildTarGz([{ name: "package/a", data: Buffer.alloc(3 * 1024 * 1024, 1) }]);
    await expect(extractTarGz(big, destination, { limits: { ...defaultArchiveLimits, maxTotalBytes: 1024 * 1024, maxCompressionRatio: 1e9 } })).rejects.toMatchObject({ code: "ARCHIVE_TOO_LARGE" });
    const many = buildTarGz(Array.from({ length: 20 }, (_, i) => ({ name: `package/f${i}`, data: "x" })));
    await expect(extractTarGz(many, destination, { limits: { ...defaultArchiveLimits, maxEntries: 10 } })).rejects.toMatchObject({ code: "ARCHIVE_TOO_MANY_ENTRIES" });
    await expect(extractTarGz(Buffer.from("PK\u0003\u0004 a zip"), destination)).rejects.toMatchObject({ code: "ARCHIVE_UNSUPPORTED" });
    expect(fs.existsSync(destination)).toBe(false);
  });
});

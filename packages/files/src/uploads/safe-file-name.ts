import crypto from "node:crypto";
import { checkNameSegment, removeHiddenCharacters } from "@thinktank/core";

/** Longest stored name, in UTF-8 bytes (ext4 allows 255; room is left for a numbered suffix and `.md`). @default 200 */
export const maxNameBytes = 200;

/** ASCII characters replaced: separators and what shells and other systems read specially in a name. */
const reservedAscii = /[\\/:*?"<>|]/u;
/** Allowed beyond ASCII: letters, marks, digits, dashes, brackets, quotes, connectors, currency, emoji. */
const allowed = /[\p{L}\p{M}\p{N}\p{Pd}\p{Ps}\p{Pe}\p{Pi}\p{Pf}\p{Pc}\p{Sc}\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}]/u;
/** What a character must not read as once compatibility forms are folded (NFKC): a separator or a dot. */
const readsAsPathPart = /[./\\:]/u;
const extension = /(?:\.tar)?\.[\p{L}\p{N}]{1,16}$/iu;

/**
 * A safe file name for an upload, from whatever the client sent (`raw`). The rule:
 * - NFC; the last segment after any `/` or `\` (a basename, never a path);
 * - removed: controls (NUL included), bidirectional controls, zero-width and other invisible
 *   characters (core's rule for archive names, removeHiddenCharacters);
 * - replaced by `_`: `\ / : * ? " < > |`; every character beyond ASCII whose compatibility form
 *   (NFKC) holds a dot, a slash, a backslash or a colon (full-width ／ and ．, ․ U+2024, ‥ ...); and
 *   every character beyond ASCII that is not a letter, mark, digit, dash, bracket, quote, connector,
 *   currency sign or emoji: symbols and other punctuation, where the look-alikes of separators live
 *   (∕ U+2215, ⁄ U+2044, ⧸, ╱, ∖, 。), private-use and unassigned code points; spaces of every
 *   kind become a plain space;
 * - leading dots and spaces, trailing dots and spaces are dropped (no hidden files, no `.` or `..`);
 * - at most maxNameBytes of UTF-8, cut on a character boundary before the extension, which is kept;
 * - nothing left (or a name core's archive check still refuses, e.g. a look-alike of `SKILL.md`):
 *   `upload-<8 hex>` with the extension, if any.
 */
export function safeFileName(raw: string): string {
  const base = (raw.normalize("NFC").split(/[/\\]/u).filter((part) => part.trim() !== "").pop() ?? "").trim();
  const cleaned = Array.from(removeHiddenCharacters(base), cleanCharacter)
    .join("")
    .replace(/^[.\s]+/u, "")
    .replace(/[.\s]+$/u, "")
    .normalize("NFC");
  const capped = capBytes(cleaned, maxNameBytes);
  if (capped !== "" && passesArchiveCheck(capped)) return capped;
  const ext = extension.exec(capped)?.[0] ?? "";
  return `upload-${crypto.randomBytes(4).toString("hex")}${passesArchiveCheck(`x${ext}`) ? ext : ""}`;
}

/**
 * `name`, or `stem (n)ext` with the smallest n from 1 for which `taken` answers false, still within
 * maxNameBytes (report.pdf, report (1).pdf, report (2).pdf; archive.tar.gz, archive (1).tar.gz).
 */
export function numberedName(name: string, taken: (candidate: string) => boolean): string {
  if (!taken(name)) return name;
  const ext = extension.exec(name)?.[0] ?? "";
  const stem = name.slice(0, name.length - ext.length);
  for (let n = 1; ; n += 1) {
    const suffix = ` (${n})${ext}`;
    const candidate = `${truncateBytes(stem, maxNameBytes - Buffer.byteLength(suffix))}${suffix}`;
    if (!taken(candidate)) return candidate;
  }
}

function cleanCharacter(character: string): string {
  const code = character.codePointAt(0) ?? 0;
  if (code < 0x80) return reservedAscii.test(character) ? "_" : character;
  if (/\p{Zs}/u.test(character)) return " ";
  if (readsAsPathPart.test(character.normalize("NFKC"))) return "_";
  return allowed.test(character) ? character : "_";
}

/** `name` within `limit` UTF-8 bytes, the extension kept when there is room for a stem. */
function capBytes(name: string, limit: number): string {
  if (Buffer.byteLength(name) <= limit) return name;
  const ext = extension.exec(name)?.[0] ?? "";
  const room = limit - Buffer.byteLength(ext);
  if (ext !== "" && room >= 16) return `${truncateBytes(name.slice(0, name.length - ext.length), room).replace(/[.\s]+$/u, "")}${ext}`;
  return truncateBytes(name, limit).replace(/[.\s]+$/u, "");
}

/** The longest prefix of whole characters (grapheme clusters) within `limit` UTF-8 bytes. */
function truncateBytes(text: string, limit: number): string {
  let kept = "";
  let bytes = 0;
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text)) {
    const size = Buffer.byteLength(segment);
    if (bytes + size > limit) break;
    kept += segment;
    bytes += size;
  }
  return kept;
}

function passesArchiveCheck(name: string): boolean {
  try {
    checkNameSegment(name, name);
    return true;
  } catch {
    return false;
  }
}

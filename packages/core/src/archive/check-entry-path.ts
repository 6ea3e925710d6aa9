import { ThinktankError } from "../errors/thinktank-error.js";
import { checkNameSegment } from "./check-name-segment.js";

const maxSegmentBytes = 255;
const maxPathBytes = 4096;
const controlCharacters = /[\u0000-\u001f\u007f]/;

/**
 * Checks one entry name of an untrusted archive (or a relative path inside a package folder)
 * and returns its path segments. Refuses, each with its own code: NUL, control characters,
 * backslashes and ':' (ARCHIVE_BAD_NAME), a leading '/' (ARCHIVE_ABSOLUTE_PATH) and any '..'
 * segment (ARCHIVE_PATH_TRAVERSAL). Empty and '.' segments are dropped ("./a//b" is "a/b").
 * Each segment must also not lie (see checkNameSegment: bidi controls, zero-width characters,
 * full-width "．．", look-alikes of reserved names such as "ЅKILL.md"; ARCHIVE_BAD_NAME).
 */
export function checkEntryPath(name: string): string[] {
  const shown = JSON.stringify(name);
  if (name.includes("\u0000")) throw new ThinktankError("ARCHIVE_BAD_NAME", `entry ${shown} contains a NUL byte`);
  if (name.includes("\\")) throw new ThinktankError("ARCHIVE_BAD_NAME", `entry ${shown} contains a backslash`);
  if (name.includes(":")) throw new ThinktankError("ARCHIVE_BAD_NAME", `entry ${shown} contains ':'`);
  if (controlCharacters.test(name)) throw new ThinktankError("ARCHIVE_BAD_NAME", `entry ${shown} contains a control character`);
  if (name.includes("\uFFFD")) throw new ThinktankError("ARCHIVE_BAD_NAME", `entry ${shown} is not valid UTF-8`);
  if (name.startsWith("/")) throw new ThinktankError("ARCHIVE_ABSOLUTE_PATH", `entry ${shown} is an absolute path`);
  const segments = name.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (segments.includes("..")) throw new ThinktankError("ARCHIVE_PATH_TRAVERSAL", `entry ${shown} leads outside the archive ('..')`);
  if (segments.length === 0) throw new ThinktankError("ARCHIVE_BAD_NAME", `entry ${shown} has an empty name`);
  if (Buffer.byteLength(name) > maxPathBytes) throw new ThinktankError("ARCHIVE_BAD_NAME", `entry ${shown} is longer than ${maxPathBytes} bytes`);
  for (const segment of segments) {
    if (Buffer.byteLength(segment) > maxSegmentBytes) {
      throw new ThinktankError("ARCHIVE_BAD_NAME", `entry ${shown} has a name part longer than ${maxSegmentBytes} bytes`);
    }
    checkNameSegment(segment, name);
  }
  return segments;
}

import { ThinktankError } from "../errors/thinktank-error.js";

/**
 * Characters that make a name lie about what it is or how it reads: C0/C1 controls (NUL
 * included), bidirectional controls (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C),
 * zero-width and other default-ignorable characters (U+200B–U+200D, U+FEFF, U+00AD, variation
 * selectors...), and line and paragraph separators.
 */
const hidden = /[\p{Cc}\p{Bidi_Control}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}]/u;

/**
 * Names the loaders look up (skills, plugins, marketplaces, skill context), by their lower case.
 * A name that only becomes one of these after NFKC or after undoing look-alike letters is
 * refused: it would read as the real file to a person or a model, but the loader would skip it.
 */
const reservedNames = new Map(
  ["SKILL.md", ".claude-plugin", "plugin.json", "marketplace.json", ".mcp.json", "hooks.json", "tools.json", "resources.json", "commands", "agents", "skills", "hooks"].map(
    (name) => [name.toLowerCase(), name],
  ),
);

/**
 * Look-alikes NFKC leaves alone: Cyrillic and Greek letters drawn like Latin ones, and slashes.
 * Small on purpose: it only has to cover the letters of the reserved names and path separators.
 */
const lookAlikes: Readonly<Record<string, string>> = {
  // Cyrillic capitals
  "\u0410": "A", "\u0412": "B", "\u0421": "C", "\u0415": "E", "\u041D": "H", "\u0406": "I", "\u0408": "J", "\u041A": "K",
  "\u041C": "M", "\u041E": "O", "\u0420": "P", "\u0405": "S", "\u0422": "T", "\u0425": "X", "\u04AE": "Y", "\u04C0": "I",
  // Cyrillic small letters
  "\u0430": "a", "\u0441": "c", "\u0501": "d", "\u0435": "e", "\u04BB": "h", "\u0456": "i", "\u0458": "j", "\u04CF": "l",
  "\u043E": "o", "\u0440": "p", "\u051B": "q", "\u0455": "s", "\u0443": "y", "\u0445": "x", "\u051D": "w",
  // Greek capitals and small letters
  "\u0391": "A", "\u0392": "B", "\u0395": "E", "\u0396": "Z", "\u0397": "H", "\u0399": "I", "\u039A": "K", "\u039C": "M",
  "\u039D": "N", "\u039F": "O", "\u03A1": "P", "\u03A4": "T", "\u03A5": "Y", "\u03A7": "X",
  "\u03B1": "a", "\u03B9": "i", "\u03BA": "k", "\u03BD": "v", "\u03BF": "o", "\u03C1": "p", "\u03C5": "u",
  // Latin letters without their dot, and script g
  "\u0131": "i", "\u0237": "j", "\u0261": "g",
  // slashes and backslashes
  "\u2044": "/", "\u2215": "/", "\u29F8": "/", "\u2571": "/", "\u2216": "\\", "\u29F5": "\\", "\u29F9": "\\", "\u2572": "\\",
};

/**
 * Checks one segment of an entry name (`entry`, for the message) from an untrusted archive or
 * folder; throws ARCHIVE_BAD_NAME when the name lies. Such names are refused, never stored
 * normalised: renaming a file silently would break the references to it inside the package.
 * Refused: hidden characters (see `hidden`); a segment whose NFKC form is "." or "..", or holds
 * '/', '\' or ':' (full-width "．．", "／"); a segment that is not a reserved name but reads as
 * one after NFKC or after replacing look-alike letters ("ＳＫＩＬＬ.md", "ЅKILL.md" with a
 * Cyrillic Ѕ). Other non-Latin names, Cyrillic ones included, are accepted.
 */
export function checkNameSegment(segment: string, entry: string): void {
  const refuse = (why: string): never => {
    throw new ThinktankError("ARCHIVE_BAD_NAME", `entry ${quote(entry)} has the name part ${quote(segment)}, which ${why}`, {
      details: { entry: escape(entry), segment: escape(segment) },
    });
  };
  const found = hidden.exec(segment);
  if (found) refuse(`contains ${codePoint(found[0])}, an invisible, control or text-direction character`);
  const normal = segment.normalize("NFKC");
  const skeleton = Array.from(normal, (character) => lookAlikes[character] ?? character).join("");
  for (const form of [normal, skeleton]) {
    if (form === "." || form === "..") refuse(`reads as "${form}"`);
    const separator = /[/\\:]/.exec(form);
    if (separator) refuse(`reads as containing "${separator[0]}"`);
  }
  const reserved = reservedNames.get(skeleton.toLowerCase());
  if (reserved !== undefined && (normal !== segment || skeleton !== normal)) refuse(`looks like the reserved name "${reserved}" but is not it`);
}

/**
 * Text with the characters that change how it reads (see `hidden`) written as \uXXXX, so a
 * message quoting a hostile value shows what is there instead of reordering itself in a terminal
 * or a page. Everything else is left as it is.
 */
export function escapeHiddenCharacters(text: string): string {
  return text.replace(new RegExp(hidden.source, "gu"), (character) => `\\u${(character.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`);
}

/**
 * Text without the characters that change how it reads (see `hidden`): controls, bidirectional
 * controls, zero-width and other invisible characters, line and paragraph separators. For names
 * that are cleaned rather than refused (a thread's uploads).
 */
export function removeHiddenCharacters(text: string): string {
  return text.replace(new RegExp(hidden.source, "gu"), "");
}

function codePoint(character: string): string {
  return `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
}

/** Shows every character outside printable ASCII as \u{...}, so the message itself cannot lie. */
function escape(text: string): string {
  return Array.from(text, (character) => {
    const code = character.codePointAt(0) ?? 0;
    return code >= 0x20 && code < 0x7f && character !== "\\" ? character : `\\u{${code.toString(16).toUpperCase()}}`;
  }).join("");
}

function quote(text: string): string {
  return `"${escape(text)}"`;
}

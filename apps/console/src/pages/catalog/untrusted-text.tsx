// Names, descriptions and versions from skills, plugins and marketplaces are hostile: shown as React
// text (never HTML), with bidi and invisible control characters as visible escapes.
import { revealBidi } from "../../text/reveal-bidi.js";

/** Untrusted text, rendered as text with its control characters visible. */
export function Untrusted({ text, className }: { readonly text: string | undefined | null; readonly className?: string }) {
  if (text === undefined || text === null || text === "") return null;
  return className ? <span className={className}>{revealBidi(text)}</span> : <>{revealBidi(text)}</>;
}

/** A version for a sentence: "1.2.0", or "no version" when the package gives none. */
export function versionText(version: string | undefined): string {
  return version ? revealBidi(version) : "no version";
}

// XML 1.0 forbids these characters even escaped.
const forbidden = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
const entities: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

/** Escapes text for XML element content or attributes, and drops characters XML cannot hold. */
export function escapeXml(text: string): string {
  return text.replace(forbidden, "").replace(/[&<>"']/g, (character) => entities[character] as string);
}

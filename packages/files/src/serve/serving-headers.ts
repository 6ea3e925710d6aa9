/**
 * Types a browser shows inline without running anything of the file's: raster images, audio,
 * video, PDF, plain text, CSV, Markdown (as text) and JSON. Everything else, and every type the
 * browser could execute or render as a document with script (HTML, XHTML, SVG, XML, JavaScript,
 * anything unknown), goes out as an attachment.
 */
const passiveTypes = /^(?:image\/(?:png|jpeg|gif|webp|avif|bmp)|audio\/[\w.+-]+|video\/[\w.+-]+|application\/pdf|text\/plain|text\/csv|text\/markdown|application\/json)$/u;

/**
 * The headers every served thread file gets, beside ETag, Last-Modified, Content-Length and
 * Content-Range (@fastify/send's). The rule, for any file a model or a user put there:
 * - `Content-Type` from the name (mime-types; application/octet-stream when unknown; UTF-8 for text);
 * - `X-Content-Type-Options: nosniff`: the browser never guesses a more dangerous type;
 * - `Content-Security-Policy: sandbox; default-src 'none'; img-src 'self' data:; media-src 'self';
 *   style-src 'unsafe-inline'`: whatever is rendered gets an opaque origin and runs no script, so
 *   it never acts on the API's origin (a PDF viewer may refuse to render under it: fetch such a
 *   file and show it from a blob instead);
 * - `Content-Disposition: inline` only for the passive types above, else `attachment`; the file
 *   name in both forms (RFC 6266: an ASCII fallback and UTF-8);
 * - `Cache-Control: private, no-cache`: caches keep it only for this caller, and revalidate (ETag).
 */
export function servingHeaders(name: string, mimeType: string): Record<string, string> {
  const passive = passiveTypes.test(mimeType);
  const textual = mimeType.startsWith("text/") || mimeType === "application/json";
  return {
    "content-type": textual ? `${mimeType}; charset=utf-8` : mimeType,
    "x-content-type-options": "nosniff",
    "content-security-policy": "sandbox; default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'",
    "content-disposition": `${passive ? "inline" : "attachment"}; ${dispositionFileName(name)}`,
    "cache-control": "private, no-cache",
  };
}

/** `filename="<ASCII fallback>"; filename*=UTF-8''<percent-encoded>` (RFC 6266, RFC 8187). */
export function dispositionFileName(name: string): string {
  const fallback = Array.from(name, (character) => (/^[\x20-\x7e]$/u.test(character) && character !== '"' && character !== "\\" && character !== "%" ? character : "_")).join("");
  const encoded = encodeURIComponent(name).replace(/['()*]/gu, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
  return `filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

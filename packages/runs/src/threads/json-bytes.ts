/**
 * About how many bytes `value` takes as JSON (UTF-8), without making the text: strings by their UTF-8
 * length (escapes not counted), numbers by their digits, plus the punctuation. For a size check
 * on a request that may hold megabytes (checkRoom), where a JSON.stringify would hold the event loop.
 */
export function approximateJsonBytes(value: unknown): number {
  if (value === undefined) return 0;
  if (value === null) return 4;
  if (typeof value === "string") return Buffer.byteLength(value) + 2;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value).length;
  if (typeof value !== "object") return 0;
  const json = (value as { toJSON?: unknown }).toJSON;
  if (typeof json === "function") return approximateJsonBytes((value as { toJSON(): unknown }).toJSON());
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + approximateJsonBytes(item) + 1, 2);
  let bytes = 2;
  for (const [key, field] of Object.entries(value)) if (field !== undefined) bytes += Buffer.byteLength(key) + 4 + approximateJsonBytes(field);
  return bytes;
}

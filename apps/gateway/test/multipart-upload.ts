/**
 * A multipart/form-data body with one file field, for app.inject: `{ headers, payload }`.
 * `fields` are plain form fields sent before the file, `fieldsAfter` after it.
 */
export function multipartUpload(
  field: string,
  fileName: string,
  data: Buffer,
  contentType = "application/zip",
  options: { readonly fields?: Readonly<Record<string, string>>; readonly fieldsAfter?: Readonly<Record<string, string>> } = {},
): { headers: Record<string, string>; payload: Buffer } {
  const boundary = `----thinktank-test-${Math.random().toString(16).slice(2)}`;
  const plain = (fields: Readonly<Record<string, string>> = {}): Buffer[] =>
    Object.entries(fields).map(([name, value]) => Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${fileName}"\r\nContent-Type: ${contentType}\r\n\r\n`);
  const tail = Buffer.from(`--${boundary}--\r\n`);
  return {
    headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
    payload: Buffer.concat([...plain(options.fields), head, data, Buffer.from("\r\n"), ...plain(options.fieldsAfter), tail]),
  };
}

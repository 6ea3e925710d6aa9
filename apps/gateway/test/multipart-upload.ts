/** A multipart/form-data body with one file field, for app.inject: `{ headers, payload }`. */
export function multipartUpload(field: string, fileName: string, data: Buffer, contentType = "application/zip"): { headers: Record<string, string>; payload: Buffer } {
  const boundary = `----thinktank-test-${Math.random().toString(16).slice(2)}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${fileName}"\r\nContent-Type: ${contentType}\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { headers: { "content-type": `multipart/form-data; boundary=${boundary}` }, payload: Buffer.concat([head, data, tail]) };
}

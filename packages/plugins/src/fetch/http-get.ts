import { redactSecrets, ThinktankError } from "@thinktank/core";

export interface HttpGetOptions {
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** Shown in errors (never with credentials). */
  readonly what: string;
}

/**
 * GET of a small resource (a marketplace.json, an npm packument or tarball) with a deadline
 * for the whole transfer (SOURCE_TIMEOUT) and a byte cap counted while reading, whatever
 * Content-Length says (SOURCE_TOO_LARGE): the body is read chunk by chunk and the request
 * aborted at the cap, so a server that sends 1 GB costs at most the cap. Redirects are followed
 * by fetch (at most 20). A status other than 2xx is SOURCE_FETCH_FAILED.
 */
export async function httpGet(url: URL, options: HttpGetOptions): Promise<{ body: Buffer; contentType: string }> {
  // `what` may name the URL with its credentials: masked in every message.
  const what = redactSecrets(options.what);
  const controller = new AbortController();
  let reason: ThinktankError | undefined;
  const abort = (error: ThinktankError): void => {
    reason ??= error;
    controller.abort();
  };
  const deadline = setTimeout(() => abort(new ThinktankError("SOURCE_TIMEOUT", `${what} took longer than ${Math.round(options.timeoutMs / 1000)} s (plugins.fetch.timeout_seconds); stopped`)), options.timeoutMs);
  const tooLarge = (): ThinktankError => new ThinktankError("SOURCE_TOO_LARGE", `${what} is larger than ${options.maxBytes} bytes (plugins.fetch.max_mb); stopped`);
  try {
    const response = await fetch(url, { headers: { ...options.headers }, signal: controller.signal, redirect: "follow" });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new ThinktankError("SOURCE_FETCH_FAILED", `${what}: the server answered ${response.status} ${response.statusText}`.trim());
    }
    const declared = Number(response.headers.get("content-length") ?? "NaN");
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw tooLarge();
    }
    const chunks: Buffer[] = [];
    let total = 0;
    const reader = response.body?.getReader();
    while (reader) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > options.maxBytes) {
        abort(tooLarge());
        await reader.cancel().catch(() => undefined);
        throw reason ?? tooLarge();
      }
      chunks.push(Buffer.from(value));
    }
    return { body: Buffer.concat(chunks, total), contentType: response.headers.get("content-type") ?? "" };
  } catch (error) {
    if (reason) throw reason;
    if (error instanceof ThinktankError) throw error;
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new ThinktankError("SOURCE_FETCH_FAILED", `${what}: ${cause?.code ?? cause?.message ?? (error as Error).message}`, { cause: error });
  } finally {
    clearTimeout(deadline);
  }
}

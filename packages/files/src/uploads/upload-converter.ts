/**
 * What an upload needs of a document converter (engineer B's DocumentConverter from convert/ has
 * this shape): whether it takes a file, and making its Markdown version.
 */
export interface UploadConverter {
  accepts(name: string, mimeType: string): boolean;
  convert(inputPath: string, outputPath: string, signal?: AbortSignal): Promise<{ ok: true; bytes: number; truncated: boolean } | { ok: false; reason: string }>;
}

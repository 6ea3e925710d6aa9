import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { extractTarGz, extractZip, redactSecrets, ThinktankError } from "@thinktank/core";
import { checkHttpUrl } from "./check-source-values.js";
import type { FetchOptions } from "./fetch-options.js";
import { httpGet } from "./http-get.js";

export interface ArchiveRequest {
  /** https:// (http:// with plugins.fetch.allow_http) URL of a .tar.gz/.tgz or .zip. */
  readonly url: string;
  /** The archive's sha256 (64 hex digits); when given the bytes must match it. */
  readonly sha256?: string;
  /** Created with the plugin (the archive root, or its single top folder); must not exist. */
  readonly destination: string;
  readonly workParent: string;
}

export interface FetchedArchive {
  /** sha256 of the bytes fetched, hex. */
  readonly sha256: string;
  /** The same digest as an SRI string (`sha256-<base64>`), as npm integrities are written. */
  readonly integrity: string;
}

/**
 * Fetches a plugin archive (a marketplace `{ source: "archive", url, sha256? }` entry) the way
 * fetchNpmPackage fetches a tarball: one GET within plugins.fetch (deadline, byte cap), the bytes
 * checked against `sha256` when given (else INTEGRITY_MISMATCH), then extracted under the archive
 * rules (extractTarGz or extractZip, chosen by the bytes: gzip or zip). The plugin is the archive
 * root, or its single top folder when that is all it holds (GitHub's and npm's tarballs wrap
 * everything in one).
 */
export async function fetchPluginArchive(request: ArchiveRequest, options: FetchOptions): Promise<FetchedArchive> {
  const url = checkHttpUrl(request.url, options, "archive URL");
  const wanted = request.sha256 === undefined ? undefined : checkSha256(request.sha256);
  const shown = redactSecrets(url.href);
  const { body } = await httpGet(url, { timeoutMs: options.timeoutMs, maxBytes: options.maxBytes, what: `the archive ${shown}` });
  const sha256 = crypto.createHash("sha256").update(body).digest("hex");
  if (wanted && wanted !== sha256) {
    throw new ThinktankError("INTEGRITY_MISMATCH", `the archive ${shown}: its sha256 is ${sha256}, not the ${wanted} the marketplace pins`, { details: { expected: wanted, actual: sha256 } });
  }
  const work = await fs.promises.mkdtemp(path.join(request.workParent, "archive-"));
  try {
    const extracted = path.join(work, "extracted");
    const limits = { ...options.archiveLimits, maxTotalBytes: Math.min(options.archiveLimits.maxTotalBytes, options.maxBytes) };
    if (body[0] === 0x1f && body[1] === 0x8b) await extractTarGz(body, extracted, { limits });
    else if (body.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04])) || body.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x05, 0x06]))) await extractZip(body, extracted, { limits });
    else throw new ThinktankError("SOURCE_FETCH_FAILED", `the archive ${shown} is neither a .tar.gz nor a .zip`);
    const top = await fs.promises.readdir(extracted, { withFileTypes: true });
    const root = top.length === 1 && top[0]?.isDirectory() ? path.join(extracted, top[0].name) : extracted;
    await fs.promises.rename(root, request.destination);
    return { sha256, integrity: sha256Integrity(sha256) };
  } finally {
    await fs.promises.rm(work, { recursive: true, force: true });
  }
}

/** A sha256 as written in a marketplace: 64 hex digits (either case), returned lowercase. */
export function checkSha256(value: unknown): string {
  if (typeof value !== "string" || !/^[0-9a-fA-F]{64}$/.test(value)) {
    throw new ThinktankError("INVALID_SOURCE", `sha256 ${JSON.stringify(typeof value === "string" ? value.slice(0, 80) : value)} is not 64 hex digits`);
  }
  return value.toLowerCase();
}

/** `sha256-<base64>` of a hex sha256. */
export function sha256Integrity(hex: string): string {
  return `sha256-${Buffer.from(hex, "hex").toString("base64")}`;
}

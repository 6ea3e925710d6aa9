import type { Config } from "../config/config-types.js";

/** Limits applied while reading an untrusted archive or package folder. */
export interface ArchiveLimits {
  /** Most entries (files, folders, anything) the archive may hold. @default 4096 */
  readonly maxEntries: number;
  /** Most bytes all extracted files may add up to, counted while extracting. @default 200 MiB */
  readonly maxTotalBytes: number;
  /** Most bytes one extracted file may have. @default 50 MiB */
  readonly maxFileBytes: number;
  /** Highest uncompressed/compressed ratio, per entry and for the whole archive. @default 200 */
  readonly maxCompressionRatio: number;
  /**
   * Below this many uncompressed bytes the ratio is not checked: small, very regular files
   * (a README of blank lines) compress extremely well and are harmless. @default 1 MiB
   */
  readonly ratioFloorBytes: number;
}

const mebibyte = 1024 * 1024;

export const defaultArchiveLimits: ArchiveLimits = Object.freeze({
  maxEntries: 4096,
  maxTotalBytes: 200 * mebibyte,
  maxFileBytes: 50 * mebibyte,
  maxCompressionRatio: 200,
  ratioFloorBytes: mebibyte,
});

/** The limits config.yaml sets under `gateway.archive`. */
export function archiveLimitsFromConfig(config: Pick<Config, "gateway">): ArchiveLimits {
  const archive = config.gateway.archive;
  return Object.freeze({
    maxEntries: archive.max_entries,
    maxTotalBytes: Math.floor(archive.max_uncompressed_mb * mebibyte),
    maxFileBytes: Math.floor(archive.max_file_mb * mebibyte),
    maxCompressionRatio: archive.max_compression_ratio,
    ratioFloorBytes: defaultArchiveLimits.ratioFloorBytes,
  });
}

import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** Every user key starts so (`tt_u_<key id>_<secret>`): secret scanners and logs recognise it. */
export const userKeyPrefix = "tt_u_";

const keyPattern = /^tt_u_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

export interface NewUserKey {
  readonly keyId: string;
  /** The whole key, shown once. */
  readonly apiKey: string;
  /** SHA-256 of the secret, hex: all that is stored. */
  readonly secretSha256: string;
  readonly last4: string;
}

/** A fresh key: a 12-hex-digit id (48 bits, to find it) and a 32-byte random secret (base64url, to prove it). */
export function newUserKey(): NewUserKey {
  const keyId = randomBytes(6).toString("hex");
  const secret = randomBytes(32).toString("base64url");
  const apiKey = `${userKeyPrefix}${keyId}_${secret}`;
  return { keyId, apiKey, secretSha256: secretDigest(secret).toString("hex"), last4: apiKey.slice(-4) };
}

/** A user id: `usr_` and 16 hex digits. */
export function newUserId(): string {
  return `usr_${randomBytes(8).toString("hex")}`;
}

/** The id and secret of a well-formed user key, else undefined. */
export function parseUserKey(value: string): { keyId: string; secret: string } | undefined {
  const match = keyPattern.exec(value);
  return match ? { keyId: match[1] as string, secret: match[2] as string } : undefined;
}

export function secretDigest(secret: string): Buffer {
  return createHash("sha256").update(secret, "utf8").digest();
}

/** Compared in constant time (both are 32-byte digests, so no length leaks either). */
export function digestsMatch(presented: Buffer, stored: Buffer): boolean {
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

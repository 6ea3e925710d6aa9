import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { ThinktankError } from "@thinktank/core";

export interface SecretKeyOptions {
  /** THINKTANK_SECRET_KEY (from config.env): when set, the key is derived from it and no key file is used. */
  readonly secret?: string | undefined;
  /** The generated key file used otherwise: 32 random bytes, base64, created with mode 0600. */
  readonly keyFile: string;
}

const keyBytes = 32;
// A fixed salt: the secret is the only input that must stay private; scrypt makes guessing a weak one slow.
const salt = "thinktank-mcp-oauth-v1";

/**
 * The AES-256 key of the token store. With a secret, scrypt of it (so any passphrase works); else
 * the key file, created on first use. Two processes creating it at once agree on one key: it is
 * written beside and linked into place, which only one of them can do.
 */
export function loadSecretKey(options: SecretKeyOptions): Buffer {
  if (options.secret !== undefined && options.secret !== "") return crypto.scryptSync(options.secret, salt, keyBytes);
  const existing = readKeyFile(options.keyFile);
  if (existing) return existing;
  fs.mkdirSync(path.dirname(options.keyFile), { recursive: true, mode: 0o700 });
  const temp = `${options.keyFile}.tmp-${process.pid}-${crypto.randomBytes(6).toString("hex")}`;
  fs.writeFileSync(temp, `${crypto.randomBytes(keyBytes).toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  try {
    fs.linkSync(temp, options.keyFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    fs.rmSync(temp, { force: true });
  }
  const created = readKeyFile(options.keyFile);
  if (!created) throw keyProblem(options.keyFile, "it was just created but cannot be read back");
  return created;
}

function readKeyFile(file: string): Buffer | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw keyProblem(file, (error as Error).message);
  }
  const key = Buffer.from(text.trim(), "base64");
  if (key.length !== keyBytes) throw keyProblem(file, `it does not hold ${keyBytes} base64 bytes`);
  return key;
}

function keyProblem(file: string, why: string): ThinktankError {
  return new ThinktankError("OAUTH_STORE_UNREADABLE", `the OAuth key file ${file} cannot be used: ${why}`, { details: { file } });
}

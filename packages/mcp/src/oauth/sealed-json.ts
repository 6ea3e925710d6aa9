import crypto from "node:crypto";
import fs from "node:fs";

/** The envelope written to disk: AES-256-GCM over the JSON text, bound to `aad` (what the file is for). */
interface Sealed {
  readonly v: 1;
  readonly alg: "A256GCM";
  readonly iv: string;
  readonly tag: string;
  readonly data: string;
}

/** Encrypts a JSON value; `aad` (e.g. the server's name) must be given again to open it. */
export function sealJson(key: Buffer, aad: string, value: unknown): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(aad, "utf8"));
  const data = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
  const sealed: Sealed = { v: 1, alg: "A256GCM", iv: iv.toString("base64"), tag: cipher.getAuthTag().toString("base64"), data: data.toString("base64") };
  return `${JSON.stringify(sealed)}\n`;
}

/** Decrypts what sealJson wrote; throws when the key or `aad` differ or the file was altered. */
export function openSealedJson(key: Buffer, aad: string, text: string): unknown {
  const sealed = JSON.parse(text) as Partial<Sealed>;
  if (sealed.v !== 1 || sealed.alg !== "A256GCM" || typeof sealed.iv !== "string" || typeof sealed.tag !== "string" || typeof sealed.data !== "string") {
    throw new Error("not a sealed token file");
  }
  const decipher = crypto.createDecipheriv("aes-256-gcm", key, Buffer.from(sealed.iv, "base64"));
  decipher.setAAD(Buffer.from(aad, "utf8"));
  decipher.setAuthTag(Buffer.from(sealed.tag, "base64"));
  const plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, "base64")), decipher.final()]);
  return JSON.parse(plain.toString("utf8"));
}

/** A sealed file's text; undefined when there is no such file (any other read error is thrown). */
export function readSealedFile(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

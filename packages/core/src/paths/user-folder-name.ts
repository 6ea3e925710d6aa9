import { createHash } from "node:crypto";

/**
 * The name of one user's own folder wherever per-user files live (skills/users, agents/users,
 * memory): the user id when it is a plain lowercase name (`usr_1a2b`, `admin`) and otherwise `h-`
 * and the SHA-256 of the id (a JWT user `jwt:<claim>` may carry any characters). Derived from the
 * id alone, so no name or request can point into another user's folder.
 */
export function userFolderName(userId: string): string {
  return /^[a-z0-9_]{1,64}$/.test(userId) ? userId : `h-${createHash("sha256").update(userId).digest("hex").slice(0, 40)}`;
}

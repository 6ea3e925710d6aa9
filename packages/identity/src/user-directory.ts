import type { Role } from "@thinktank/core";
import { ThinktankError } from "@thinktank/core";
import { userKeysTable, usersTable } from "./identity-tables.js";
import type { IdentityStore } from "./identity-store.js";
import type { UserDirectory, UserRecord } from "./identity-types.js";
import { newUserId, newUserKey } from "./user-keys.js";

const maxNameLength = 200;

/** The users and keys of an IdentityStore: reads from its snapshot (current in this process), writes through it. */
export class SqlUserDirectory implements UserDirectory {
  readonly #store: IdentityStore;
  readonly #clock: () => Date;

  constructor(store: IdentityStore, clock: () => Date) {
    this.#store = store;
    this.#clock = clock;
  }

  async create(input: { name: string; role: Role }): Promise<{ user: UserRecord; apiKey: string }> {
    const name = checkName(input.name);
    if (input.role !== "admin" && input.role !== "user") throw new ThinktankError("VALIDATION_FAILED", `role must be "admin" or "user", not ${JSON.stringify(input.role)}`);
    const id = newUserId();
    const key = newUserKey();
    const now = this.#clock().toISOString();
    await this.#store.write([
      { sql: `INSERT INTO ${usersTable.name} (id, name, role, created_at) VALUES (?, ?, ?, ?)`, parameters: [id, name, input.role, now] },
      insertKey(key.keyId, id, key.secretSha256, now, key.last4),
    ]);
    const user = this.#store.snapshot.users.get(id) ?? { id, name, role: input.role, created_at: now, keys: [{ id: key.keyId, created_at: now, last4: key.last4 }] };
    return { user, apiKey: key.apiKey };
  }

  async list(): Promise<UserRecord[]> {
    return [...this.#store.snapshot.users.values()];
  }

  async get(id: string): Promise<UserRecord | undefined> {
    return this.#store.snapshot.users.get(id);
  }

  async remove(id: string): Promise<boolean> {
    const [, users] = await this.#store.write([
      { sql: `DELETE FROM ${userKeysTable.name} WHERE user_id = ?`, parameters: [id] },
      { sql: `DELETE FROM ${usersTable.name} WHERE id = ?`, parameters: [id] },
    ]);
    return (users ?? 0) > 0;
  }

  async addKey(userId: string): Promise<{ keyId: string; apiKey: string } | undefined> {
    const key = newUserKey();
    const now = this.#clock().toISOString();
    // Written only while the user exists, in the same statement: a key cannot outlive a removal racing it.
    const [added] = await this.#store.write([
      {
        sql: `INSERT INTO ${userKeysTable.name} (key_id, user_id, secret_sha256, created_at, last4) SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM ${usersTable.name} WHERE id = ?)`,
        parameters: [key.keyId, userId, key.secretSha256, now, key.last4, userId],
      },
    ]);
    return added ? { keyId: key.keyId, apiKey: key.apiKey } : undefined;
  }

  async removeKey(userId: string, keyId: string): Promise<boolean> {
    const [removed] = await this.#store.write([{ sql: `DELETE FROM ${userKeysTable.name} WHERE user_id = ? AND key_id = ?`, parameters: [userId, keyId] }]);
    return (removed ?? 0) > 0;
  }
}

function insertKey(keyId: string, userId: string, digest: string, now: string, last4: string) {
  return { sql: `INSERT INTO ${userKeysTable.name} (key_id, user_id, secret_sha256, created_at, last4) VALUES (?, ?, ?, ?, ?)`, parameters: [keyId, userId, digest, now, last4] };
}

function checkName(name: unknown): string {
  const trimmed = typeof name === "string" ? name.trim() : "";
  if (trimmed === "" || trimmed.length > maxNameLength || /[\u0000-\u001f\u007f]/.test(trimmed)) {
    throw new ThinktankError("VALIDATION_FAILED", `a user's name must be 1 to ${maxNameLength} characters without control characters`);
  }
  return trimmed;
}

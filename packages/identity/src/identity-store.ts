import type { Caller, Logger, Role } from "@thinktank/core";
import { createTablesSql, type SqlConnection, type SqlStatement } from "@thinktank/runs/sql";
import { auditTable, consoleSessionsTable, consoleSignInsTable, generationRowId, generationTable, identityChannel, userKeysTable, usersTable } from "./identity-tables.js";
import type { UserRecord } from "./identity-types.js";

interface UserRow {
  id: string;
  name: string;
  role: Role;
  created_at: string;
}

interface KeyRow {
  key_id: string;
  user_id: string;
  secret_sha256: string;
  created_at: string;
  last4: string;
}

/** A key as authentication needs it: whose, and the digest to compare. */
export interface CachedKey {
  readonly userId: string;
  readonly digest: Buffer;
}

/** Everything authentication reads, swapped whole on each reload (readers never see half of one). */
export interface IdentitySnapshot {
  readonly generation: number;
  readonly users: ReadonlyMap<string, UserRecord>;
  /** Each user's caller object, made once per reload (authentication hands it out as is). */
  readonly callers: ReadonlyMap<string, Caller>;
  readonly keys: ReadonlyMap<string, CachedKey>;
}

const emptySnapshot: IdentitySnapshot = { generation: -1, users: new Map(), callers: new Map(), keys: new Map() };

/**
 * Users and keys in the threads database, kept in memory: `snapshot` is what authentication reads
 * (no query per request). Writes go through `write`, which raises the generation in the same
 * transaction (and NOTIFYs on Postgres) and reloads here at once; other processes see the new
 * generation (identity-watch.ts) and reload within a second.
 */
export class IdentityStore {
  readonly connection: SqlConnection;
  readonly #logger: Logger | undefined;
  #snapshot: IdentitySnapshot = emptySnapshot;
  #reloading: Promise<void> | undefined;
  #again = false;
  #looking: Promise<boolean> | undefined;

  private constructor(connection: SqlConnection, logger: Logger | undefined) {
    this.connection = connection;
    this.#logger = logger;
  }

  static async open(connection: SqlConnection, logger?: Logger): Promise<IdentityStore> {
    const { database } = connection;
    await connection.setUp(async () => {
      await database.exec(createTablesSql(database.dialect, [usersTable, userKeysTable, generationTable, auditTable, consoleSessionsTable, consoleSignInsTable]));
      await database.run(`INSERT INTO ${generationTable.name} (id, generation) VALUES (?, 0) ON CONFLICT (id) DO NOTHING`, [generationRowId]);
    });
    const store = new IdentityStore(connection, logger);
    await store.reload();
    return store;
  }

  get snapshot(): IdentitySnapshot {
    return this.#snapshot;
  }

  /** The generation in the database (one row read): the watcher compares it with the snapshot's. */
  async storedGeneration(): Promise<number> {
    const rows = await this.connection.database.all<{ generation: number }>(`SELECT generation FROM ${generationTable.name} WHERE id = ?`, [generationRowId]);
    return Number(rows[0]?.generation ?? 0);
  }

  /** Reloads when the stored generation differs from the snapshot's (answers whether it did); calls while one look runs share it. */
  refreshIfChanged(): Promise<boolean> {
    this.#looking ??= (async () => {
      try {
        if ((await this.storedGeneration()) === this.#snapshot.generation) return false;
        await this.reload();
        return true;
      } finally {
        this.#looking = undefined;
      }
    })();
    return this.#looking;
  }

  /** Reads users and keys again; calls that arrive while one reload runs share one more after it. */
  async reload(): Promise<void> {
    if (this.#reloading) {
      this.#again = true;
      return this.#reloading;
    }
    this.#reloading = (async () => {
      try {
        do {
          this.#again = false;
          this.#snapshot = await this.#read();
        } while (this.#again);
      } finally {
        this.#reloading = undefined;
      }
    })();
    return this.#reloading;
  }

  /** Runs the statements with the generation raised (and announced on Postgres) in one transaction, then reloads here. */
  async write(statements: readonly SqlStatement[]): Promise<number[]> {
    const { database } = this.connection;
    const bump: SqlStatement[] = [{ sql: `UPDATE ${generationTable.name} SET generation = generation + 1 WHERE id = ?`, parameters: [generationRowId] }];
    if (database.dialect.name === "postgres") bump.push({ sql: "SELECT pg_notify(?, 'changed')", parameters: [identityChannel] });
    const changes = await database.transaction([...statements, ...bump]);
    await this.reload();
    return changes.slice(0, statements.length);
  }

  async #read(): Promise<IdentitySnapshot> {
    const { database } = this.connection;
    // The generation first: a change committed between these reads raises it again, so the watcher reloads once more.
    const generation = await this.storedGeneration();
    const userRows = await database.all<UserRow>(`SELECT id, name, role, created_at FROM ${usersTable.name} ORDER BY created_at, id`);
    const keyRows = await database.all<KeyRow>(`SELECT key_id, user_id, secret_sha256, created_at, last4 FROM ${userKeysTable.name} ORDER BY created_at, key_id`);
    const keysOf = new Map<string, { id: string; created_at: string; last4: string }[]>();
    const keys = new Map<string, CachedKey>();
    for (const row of keyRows) {
      keys.set(row.key_id, { userId: row.user_id, digest: Buffer.from(row.secret_sha256, "hex") });
      const list = keysOf.get(row.user_id) ?? [];
      list.push({ id: row.key_id, created_at: row.created_at, last4: row.last4 });
      keysOf.set(row.user_id, list);
    }
    const users = new Map<string, UserRecord>();
    const callers = new Map<string, Caller>();
    for (const row of userRows) {
      users.set(row.id, { id: row.id, name: row.name, role: row.role, created_at: row.created_at, keys: keysOf.get(row.id) ?? [] });
      callers.set(row.id, Object.freeze({ id: row.id, name: row.name, role: row.role, auth: "key" }));
    }
    if (generation !== this.#snapshot.generation) this.#logger?.debug({ generation, users: users.size, keys: keys.size }, "identity: users and keys loaded");
    return { generation, users, callers, keys };
  }
}

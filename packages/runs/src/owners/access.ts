import { ThinktankError, operatorId, type Caller } from "@thinktank/core";

/**
 * Whose threads, runs and store items one request reaches (docs/architecture.md, "Users: who
 * calls, what they own"). Every method of ThreadService, RunManager and StoreService a route calls
 * takes one: what the caller creates is theirs, another's resource is answered exactly as a missing one.
 */
export interface Access {
  /** The caller's id: the owner of what they create, and whose resources they reach. */
  readonly owner: string;
  /** Reaches anyone's thread or run by id (an administrator). */
  readonly anyById: boolean;
  /**
   * Lists and searches cover everyone's (an administrator asking with `X-Thinktank-Scope: all`),
   * and the store is addressed as kept, the owner's label first.
   */
  readonly everyone: boolean;
}

/** The header an administrator sends to list everyone's resources. */
export const scopeHeader = "x-thinktank-scope";

/** The access of a caller; `scope` is the request's X-Thinktank-Scope header (only `all` from an administrator counts). */
export function accessOf(caller: Caller, scope?: string | string[]): Access {
  const admin = caller.role === "admin";
  return { owner: caller.id, anyById: admin, everyone: admin && scope === "all" };
}

/** The server's own work (no caller): reaches everything. Never built from a request. */
export const serverAccess: Access = Object.freeze({ owner: operatorId, anyById: true, everyone: true });

/** Whether `access` reaches a resource that `owner` owns. */
export function reaches(access: Access, owner: string): boolean {
  return access.anyById || access.owner === owner;
}

/**
 * The store label of an owner (the first label of every item namespace as kept): ids may hold "."
 * (a JWT's `jwt:<claim>`), which no label may, so "%" and "." are escaped (`%25`, `%2E`), one to one.
 */
export function ownerLabel(owner: string): string {
  if (owner === "") throw new ThinktankError("INTERNAL", "an owner id is never empty");
  return owner.replace(/%/g, "%25").replace(/\./g, "%2E");
}

/**
 * Who a request comes from (docs/architecture.md, "Users: who calls, what they own"). Both
 * services resolve every request to one caller with the same Authenticator (packages/identity);
 * libraries take the caller's id where state is per user (owners, OAuth tokens, overlays).
 */
export type Role = "admin" | "user";

/** How the caller proved who they are: a key (a user key or THINKTANK_API_KEY), a JWT, or nothing on a key-less loopback service. */
export type AuthMethod = "key" | "jwt" | "local";

export interface Caller {
  /** `admin` for the operator, `usr_<hex>` for a user an administrator made, `jwt:<claim>` for a token's user. */
  readonly id: string;
  readonly name: string;
  readonly role: Role;
  readonly auth: AuthMethod;
}

/** The operator's id: the holder of THINKTANK_API_KEY, and the local caller of a key-less service. Rows from before owners existed belong to it. */
export const operatorId = "admin";

/** The operator as the caller of a key-less service on loopback. */
export const localOperator: Caller = Object.freeze({ id: operatorId, name: "local", role: "admin", auth: "local" });

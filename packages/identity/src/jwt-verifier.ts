import type { AuthOutcome } from "./identity-types.js";

/** Verifies bearer JWTs against auth.jwt (jwt-verifier.ts is filled in next). */
export interface JwtVerifier {
  verify(token: string): Promise<AuthOutcome>;
}

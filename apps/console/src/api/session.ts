// The signed-in person, as `GET /api/session` describes it (docs/console.md, "Sign-in").
import { api, setCsrfToken } from "./api-client.js";

export type SignInMethod = "loopback" | "api_key" | "oidc";

export interface Session {
  /** False until someone signs in (never false for the key-less loopback administrator). */
  readonly signedIn: boolean;
  /** How this session was made; absent when not signed in. */
  readonly method?: SignInMethod;
  readonly user?: { readonly id: string; readonly name: string; readonly role: "admin" | "user" };
  /** Sent back as `x-csrf-token` on every mutation. */
  readonly csrfToken?: string;
  /** How one can sign in here: an API key, and an OpenID provider when `auth.jwt` names one. */
  readonly methods: readonly SignInMethod[];
  /** The provider's name for the sign-in button, when `oidc` is offered. */
  readonly oidcIssuer?: string;
}

export async function loadSession(): Promise<Session> {
  const session = await api<Session>("/api/session");
  setCsrfToken(session.csrfToken);
  return session;
}

export async function signInWithKey(apiKey: string): Promise<Session> {
  const session = await api<Session>("/api/session", { method: "POST", body: { api_key: apiKey } });
  setCsrfToken(session.csrfToken);
  return session;
}

export async function signOut(): Promise<void> {
  await api<void>("/api/session", { method: "DELETE" });
  setCsrfToken(undefined);
}

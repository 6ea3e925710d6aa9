// Sign in with an API key, or through the OpenID provider when the service has one (auth.jwt).
import { useState, type FormEvent } from "react";
import { ApiError } from "../api/api-client.js";
import { signInWithKey, type Session } from "../api/session.js";
import { ErrorNote } from "../components/error-note.js";

export function SignInPage({ session, onSignedIn }: { readonly session: Session; readonly onSignedIn: (session: Session) => void }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState<unknown>(signInErrorFromUrl);
  const [busy, setBusy] = useState(false);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    signInWithKey(key.trim()).then(onSignedIn, (failure: unknown) => {
      setError(failure);
      setBusy(false);
    });
  };
  return (
    <main className="centered sign-in">
      <h1>Sign in to Thinktank</h1>
      {session.methods.includes("oidc") && (
        <p>
          <a className="button" href="/api/session/oidc/start">Sign in with {session.oidcIssuer ?? "your provider"}</a>
        </p>
      )}
      {session.methods.includes("api_key") && (
        <form onSubmit={submit}>
          <label htmlFor="api-key">API key</label>
          <input id="api-key" type="password" autoComplete="current-password" value={key} onChange={(event) => setKey(event.target.value)} required />
          <button type="submit" disabled={busy || key.trim() === ""}>Sign in</button>
        </form>
      )}
      <ErrorNote error={error} />
    </main>
  );
}

/** A failed OpenID sign-in comes back as `/?signin_error=<CODE>` (docs/console.md, "Sign-in and sessions"); the reason is in the audit log. */
function signInErrorFromUrl(): ApiError | undefined {
  const code = new URLSearchParams(window.location.search).get("signin_error");
  if (!code || !/^[A-Z_]{1,64}$/.test(code)) return undefined;
  return new ApiError(401, code, "The sign-in through your provider did not complete. Try again, or sign in with an API key.");
}

// Sign in with an API key, or through the OpenID provider when the service has one (auth.jwt).
import { useState, type FormEvent } from "react";
import { signInWithKey, type Session } from "../api/session.js";
import { ErrorNote } from "../components/error-note.js";

export function SignInPage({ session, onSignedIn }: { readonly session: Session; readonly onSignedIn: (session: Session) => void }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState<unknown>();
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

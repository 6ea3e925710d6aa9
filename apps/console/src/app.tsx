// The console's shell: the session, the navigation, and one route per page (docs/console.md).
import { useCallback, useEffect, useState } from "react";
import { NavLink, Route, Routes } from "react-router";
import { ApiError } from "./api/api-client.js";
import { loadSession, signOut, type Session } from "./api/session.js";
import { ErrorNote } from "./components/error-note.js";
import { SignInPage } from "./pages/sign-in-page.js";
import { pages } from "./pages/page-list.js";

export function App() {
  const [session, setSession] = useState<Session>();
  const [error, setError] = useState<unknown>();
  const refresh = useCallback(() => {
    loadSession().then(setSession, setError);
  }, []);
  useEffect(refresh, [refresh]);

  if (error) return <main className="centered"><ErrorNote error={error} /></main>;
  if (!session) return <main className="centered" aria-busy="true">Loading…</main>;
  if (!session.signedIn) return <SignInPage session={session} onSignedIn={setSession} />;

  const admin = session.user?.role === "admin";
  const visible = pages.filter((page) => !page.adminOnly || admin);
  return (
    <div className="shell">
      <a className="skip-link" href="#content">Skip to content</a>
      <header className="top-bar">
        <span className="brand">Thinktank</span>
        <nav aria-label="Main">
          <ul>
            {visible.map((page) => (
              <li key={page.path}>
                <NavLink to={page.path} end={page.path === "/"}>{page.title}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <span className="who">
          {session.user?.name}
          {session.method !== "loopback" && (
            <button type="button" className="link" onClick={() => signOut().then(refresh, (failure: unknown) => setError(failure instanceof ApiError ? failure : new Error(String(failure))))}>
              Sign out
            </button>
          )}
        </span>
      </header>
      <main id="content" tabIndex={-1}>
        <Routes>
          {visible.map((page) => (
            <Route key={page.path} path={page.path === "/" ? "/*" : `${page.path}/*`} element={<page.Component session={session} />} />
          ))}
        </Routes>
      </main>
    </div>
  );
}
